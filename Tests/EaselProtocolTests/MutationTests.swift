import EaselModel
import EaselTestSupport
import Testing

@_spi(Fuzzing) @testable import EaselProtocol

/// Decoding no input can break: inputs built from the vectors by bit flips,
/// truncations, splices and inflated lengths each decode or give a clean
/// error, and never make the decoder reserve more than the input justifies.
@Suite("Mutated input")
struct MutationTests {
    static let inputsPerRun = 100_000
    static let inputsPerSeed = 1000

    @Test func everyMutatedInputDecodesOrGivesADecodingError() throws {
        let seeds = propertySeeds(count: Self.inputsPerRun / Self.inputsPerSeed, label: "mutation")
        let corpus = try MutationCorpus.load()
        var outcomes: [String: Int] = [:]
        for seed in seeds {
            var random = SeededRandom(seed: seed)
            for _ in 0..<Self.inputsPerSeed {
                let (input, encoding) = corpus.mutant(using: &random)
                outcomes[Self.check(input, encoding, seed: seed), default: 0] += 1
            }
        }
        let total = outcomes.values.reduce(0, +)
        print("mutation: \(total) inputs; outcomes \(outcomes.sorted { $0.key < $1.key })")
        #expect(total == seeds.count * Self.inputsPerSeed)
        // A mutator that only ever produced one outcome would test little:
        // some mutants must still decode, and each kind of fault must occur.
        guard seeds.count > 1 else { return }
        #expect(outcomes["decoded", default: 0] > 0)
        for code in ["100", "101", "102", "104", "105", "106", "107", "108", "110", "111"] {
            #expect(outcomes[code, default: 0] > 0, "no mutant was refused with \(code)")
        }
    }

    /// Decodes `input`; a decoded message must survive a re-encoding.
    private static func check(_ input: [UInt8], _ encoding: WireEncoding, seed: UInt64) -> String {
        switch encoding {
        case .binary:
            let (result, reserved) = Message.decodeMeasuringReservations(input)
            #expect(reserved <= input.count, "EASEL_SEED=\(seed): reserved \(reserved) for \(input.count) bytes")
            return outcome(
                of: result,
                reencoded: { (message) throws(DecodeError) in try Message(binary: message.binaryEncoded()) }, seed: seed
            )
        case .json:
            let result = Result { () throws(DecodeError) -> Message in try Message(json: input) }
            return outcome(
                of: result, reencoded: { (message) throws(DecodeError) in try Message(json: message.jsonEncoded()) },
                seed: seed)
        }
    }

    private static func outcome(
        of result: Result<Message, DecodeError>, reencoded: (Message) throws(DecodeError) -> Message, seed: UInt64
    ) -> String {
        switch result {
        case .success(let message):
            let again = Result { () throws(DecodeError) -> Message in try reencoded(message) }
            #expect(again == .success(message), "EASEL_SEED=\(seed): a decoded mutant does not survive re-encoding")
            return "decoded"
        case .failure(let error):
            #expect((100...111).contains(error.code.rawValue), "EASEL_SEED=\(seed): \(error)")
            #expect(!error.detail.isEmpty)
            return String(error.code.rawValue)
        }
    }
}
