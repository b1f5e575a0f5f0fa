import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

@Suite("Round trips")
struct RoundTripTests {
    @Test(arguments: WireEncoding.allCases)
    func everyMessageDecodesToItselfAfterEncoding(encoding: WireEncoding) throws {
        for seed in propertySeeds(count: 500, label: "round trip (\(encoding))") {
            var messages = RandomMessages(seed: seed)
            let message = messages.message()
            let bytes = encoding == .binary ? message.binaryEncoded() : message.jsonEncoded()
            let decoded = encoding == .binary ? try Message(binary: bytes) : try Message(json: bytes)
            #expect(decoded == message, "EASEL_SEED=\(seed)")
        }
    }

    @Test func binaryAndJSONCarryTheSameBitsOfEveryFloat() throws {
        // A float printed in JSON must read back as the same binary32: the
        // shortest decimal, never a rounded one.
        for seed in propertySeeds(count: 200, label: "float bits") {
            var random = SeededRandom(seed: seed)
            let bits = UInt32.random(in: 0...UInt32.max, using: &random)
            let value = Float(bitPattern: bits)
            guard value.isFinite else { continue }
            let ping = Message.push(Push(batch: 1, ops: [op(2, alice, .set(EntityID(opID(1, alice)), .width(value)))]))
            guard case .push(let push) = try Message(json: ping.jsonEncoded()),
                case .set(_, .width(let decoded)) = push.ops.first?.action
            else {
                Issue.record("EASEL_SEED=\(seed): the push did not come back")
                continue
            }
            #expect(decoded.bitPattern == value.canonical.bitPattern, "EASEL_SEED=\(seed): \(value)")
        }
    }
}
