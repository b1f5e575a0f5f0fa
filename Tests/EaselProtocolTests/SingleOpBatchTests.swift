import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

@Suite("One op as a batch of one")
struct SingleOpBatchTests {
    /// Storage writes every op through the tableless encoder; a replay reads
    /// it with the batch decoder, and a checksum or a resend's comparison
    /// would break on any byte that differed.
    @Test func anOpAloneEncodesToTheSameBytesAsABatchOfOne() {
        var writer = ByteWriter()
        for seed in propertySeeds(count: 2_000, label: "single-op batch") {
            var messages = RandomMessages(seed: seed)
            var random = SeededRandom(seed: seed)
            for var op in messages.ops(count: 4) {
                // Transactions begun by another replica, and entities of a
                // third, name replicas in every order the tables meet them.
                if random.chance(0.3) {
                    let replica = random.chance(0.5) ? op.id.replica : ReplicaID(rawValue: UInt64(random.next() % 4))
                    op.transaction = TransactionID(OpID(counter: 1 + random.next() % 1_000, replica: replica))
                }
                OpBatchCoding.encode(op, into: &writer)
                #expect(writer.bytes == OpBatchCoding.encode([op]), "EASEL_SEED=\(seed): \(op)")
            }
        }
    }

    @Test func anOpAloneDecodesToItself() throws {
        var writer = ByteWriter()
        for seed in propertySeeds(count: 500, label: "single-op batch round trip") {
            var messages = RandomMessages(seed: seed)
            for op in messages.ops(count: 4) {
                OpBatchCoding.encode(op, into: &writer)
                #expect(try OpBatchCoding.decode(writer.bytes) == [op], "EASEL_SEED=\(seed)")
            }
        }
    }
}
