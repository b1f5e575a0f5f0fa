import EaselModel
import EaselTestSupport
import Testing

@_spi(Fuzzing) @testable import EaselProtocol

@Suite("Decoder limits")
struct DecoderLimitTests {
    @Test(arguments: WireEncoding.allCases)
    func aMessageOverOneMebibyteIsTooLargeBeforeAnythingIsRead(encoding: WireEncoding) {
        let oversize = [UInt8](repeating: 0x20, count: ProtocolLimits.messageBytes + 1)
        do {
            let message = encoding == .binary ? try Message(binary: oversize) : try Message(json: oversize)
            Issue.record("decoded \(message)")
        } catch {
            #expect(error.code == .tooLarge)
        }
    }

    /// Each count or length the binary form declares, set to the largest
    /// value its limit allows, in a message with a few bytes left: the
    /// decoder refuses it without reserving anything for it.
    @Test(arguments: [
        ("replicas", "01 03 07 80 40"),
        ("entities", "01 03 07 00 80 20"),
        ("ops", "01 03 07 00 00 80 20"),
        ("fields of a create", "01 03 07 01 ce110a0000000000 00 01 21 01 14"),
        ("samples", "01 03 07 01 ce110a0000000000 01 00 01 01 25 00 00 80 20"),
        ("peers", "01 02 01 0000000000000000 00 00 00 00 00 80 08"),
        ("selection", "01 06 ce110a0000000000 00 00 00000000 00 80 08"),
        ("text", "01 03 07 01 ce110a0000000000 00 01 21 03 01 0d 80 80 01"),
        ("token", "01 01 01 01 64 ce110a0000000000 01 80 20"),
    ])
    func aDeclaredCountTheInputCannotHoldIsRefusedBeforeAnythingIsReserved(what: String, hex: String) {
        let input = bytes(hex: hex)
        let (result, reserved) = Message.decodeMeasuringReservations(input)
        guard case .failure(let error) = result else {
            Issue.record("\(what): decoded")
            return
        }
        #expect(error.code == .lengthExceedsInput, "\(what): \(error)")
        #expect(reserved <= input.count, "\(what): reserved \(reserved)")
    }
}

@Suite("JSON reading")
struct JSONReadingTests {
    @Test func keysInAnyOrderWithWhitespaceDecodeTheSameMessage() throws {
        let spaced = """
            { "nonce" : "42" ,
              "type":"ping" }
            """
        #expect(try Message(json: spaced) == .ping(nonce: 42))
    }

    @Test func unknownKeysAreIgnoredForCompatibility() throws {
        let newer = #"{"type":"leave","replica":"00000000000b0b0b","reason":{"kind":"timeout","after":[1,2]}}"#
        #expect(try Message(json: newer) == .leave(bob))
    }

    @Test func escapesAndSurrogatePairsDecodeToTheirCharacters() throws {
        let text = #"{"type":"error","code":500,"fatal":false,"message":"\"\\\/\b\f\n\r\t\u00e9\ud83c\udfa8"}"#
        guard case .error(let error) = try Message(json: text) else {
            Issue.record("not an error message")
            return
        }
        #expect(error.message == "\"\\/\u{8}\u{C}\n\r\té🎨")
    }

    @Test func sixteenLevelsOfNestingAreAllowedAndSeventeenAreNot() throws {
        func ping(depth: Int) -> String {
            #"{"type":"ping","nonce":"1","extra":"# + String(repeating: "[", count: depth - 1)
                + String(repeating: "]", count: depth - 1) + "}"
        }
        #expect(try Message(json: ping(depth: 16)) == .ping(nonce: 1))
        do {
            _ = try Message(json: ping(depth: 17))
            Issue.record("17 levels were accepted")
        } catch {
            #expect(error.code == .invalidJSON)
        }
    }

    @Test func numbersOutsideTheJSONGrammarAreRefused() {
        for number in ["01", "1.", ".5", "+1", "1e", "0x10", "NaN", "Infinity", "-"] {
            let text =
                #"{"type":"push","batch":"1","ops":[{"id":"2@00000000000a11ce","tx":"2@00000000000a11ce","op":"set","entity":"1@00000000000a11ce","fields":{"x":"#
                + number + "}}]}"
            do {
                _ = try Message(json: text)
                Issue.record("\(number) was accepted")
            } catch {
                #expect(error.code == .invalidJSON, "\(number): \(error)")
            }
        }
    }
}
