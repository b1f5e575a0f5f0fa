import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

/// The decoder checks a set of a number on a path of its own, not through
/// `Op.validate`: it must take and refuse exactly what the whole check does.
@Suite("Decoding sets of numbers")
struct SetFastPathTests {
    @Test(
        "a batch of sets (numbers and others, on entities and the document, in transactions of every bond to their ops) decodes exactly when every op passes Op.validate, for many seeded batches"
    )
    func setsDecodeExactlyWhenTheyValidate() throws {
        for seed in propertySeeds(count: 300, label: "set fast path") {
            var random = SeededRandom(seed: seed)
            let replicas = [alice, bob]
            let entities = [EntityID(opID(1, alice)), EntityID(opID(2, bob)), EntityID.document]
            let fields: [Field] = [
                .x(12.5), .y(-3), .scale(2), .rotation(0.25), .weight(3), .size(40), .width(10), .height(20),
                .color(.black), .character("⭐️"),
            ]
            let ops = (0..<Int.random(in: 1...6, using: &random)).map { _ in
                let replica = replicas.randomElement(using: &random) ?? alice
                let counter = UInt64.random(in: 1...50, using: &random)
                let id = OpID(counter: counter, replica: replica)
                // Usually its own transaction, sometimes another's: a
                // foreign replica, a later counter, or counter 0.
                let transaction =
                    random.chance(0.7)
                    ? TransactionID(id)
                    : TransactionID(
                        OpID(
                            counter: UInt64.random(in: 0...60, using: &random),
                            replica: replicas.randomElement(using: &random) ?? bob))
                let field = fields.randomElement(using: &random) ?? .x(0)
                let entity = entities.randomElement(using: &random) ?? .document
                return Op(id: id, transaction: transaction, action: .set(entity, field))
            }
            let valid = ops.allSatisfy { op in (try? op.validate()) != nil }
            let decoded = try? OpBatchCoding.decode(OpBatchCoding.encode(ops))
            #expect((decoded != nil) == valid, "seed \(seed): \(ops)")
            if let decoded { #expect(decoded == ops, "seed \(seed)") }
        }
    }
}
