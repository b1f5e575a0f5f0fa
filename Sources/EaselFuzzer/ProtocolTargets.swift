@_spi(Fuzzing) import EaselProtocol

extension FuzzTarget {
    static let binary = FuzzTarget(
        name: "binary",
        property: """
            any bytes decode as binary to a message that re-encodes to itself, or to a decoding error \
            (100-111); the decoder never reserves more elements than the input has bytes
            """,
        check: { input in
            let (result, reserved) = Message.decodeMeasuringReservations(input)
            precondition(reserved <= input.count, "reserved \(reserved) elements for \(input.count) bytes")
            if case .success(let message) = result {
                precondition((try? Message(binary: message.binaryEncoded())) == message, "binary round trip: \(message)")
            }
            checkDecodingError(result)
        },
        seeds: { sources in try Vectors.messages(in: sources.vectors, ending: ".hex") })

    static let json = FuzzTarget(
        name: "json",
        property: "any bytes decode as JSON to a message that re-encodes to itself, or to a decoding error (100-111)",
        check: { input in
            let result = Result { () throws(DecodeError) -> Message in try Message(json: input) }
            if case .success(let message) = result {
                precondition((try? Message(json: message.jsonEncoded())) == message, "JSON round trip: \(message)")
            }
            checkDecodingError(result)
        },
        seeds: { sources in try Vectors.messages(in: sources.vectors, ending: ".json") })

    static func checkDecodingError(_ result: Result<Message, DecodeError>) {
        if case .failure(let error) = result {
            precondition((100...111).contains(error.code.rawValue), "not a decoding error: \(error)")
        }
    }
}
