@testable import EaselModel
import EaselTestSupport
import Testing

/// The run tree against the plain reference: the same ops, made by
/// replicas typing and deleting at random and delivered in random orders,
/// leave both with the same characters in the same order, deleted alike.
@Suite struct TextSequenceReferenceTests {
    static let wideScalars: [Unicode.Scalar] = ["€", "ж", "😀"]
    static func items(_ naive: NaiveTextSequence) -> [TextSequence.Item] {
        naive.items.map { TextSequence.Item(id: $0.id, scalar: $0.scalar, isDeleted: $0.isDeleted) }
    }

    /// Replicas make random edits, some ops travelling between them as
    /// they go; every op is then fed to a fresh run tree and a fresh
    /// reference in one random order, with some twice.
    @discardableResult
    private func checkRandomHistory(
        seed: UInt64, replicaCount: Int, rounds: Int, editsPerRound: ClosedRange<Int>
    ) -> TextSequence {
        var random = SeededRandom(seed: seed)
        var replicas = Array(repeating: TextSequence(), count: replicaCount)
        var counters = Array(repeating: UInt64(1), count: replicaCount)
        var made: [TextOp] = []
        for _ in 0..<rounds {
            for index in replicas.indices {
                for _ in 0..<Int.random(in: editsPerRound, using: &random) {
                    let length = replicas[index].count
                    if length == 0 || random.chance(0.7) {
                        // Now and then a scalar past Latin-1, which widens
                        // the store of scalars in the midst of a history.
                        let typed = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                            random.chance(0.02)
                                ? Self.wideScalars[Int.random(in: 0..<Self.wideScalars.count, using: &random)]
                                : Unicode.Scalar(UInt8.random(in: 97...122, using: &random))
                        }
                        let id = OpID(counter: counters[index], replica: ReplicaID(rawValue: UInt64(index + 1)))
                        counters[index] += UInt64(typed.count) + UInt64.random(in: 0...1, using: &random)
                        // Typing on from the last place, often, as people do.
                        let position = Int.random(in: 0...length, using: &random)
                        var expected = replicas[index].scalars
                        expected.insert(contentsOf: typed, at: position)
                        made.append(.insert(replicas[index].insert(typed, at: position, id: id)))
                        // A local edit lands where it was made, whatever
                        // arrived since the last one (the tree remembers
                        // where the last local edit was).
                        #expect(replicas[index].scalars == expected, "seed \(seed): a local insert")
                    } else {
                        let start = Int.random(in: 0..<length, using: &random)
                        let end = min(length, start + Int.random(in: 1...5, using: &random))
                        var expected = replicas[index].scalars
                        expected.removeSubrange(start..<end)
                        made.append(.delete(replicas[index].delete(start..<end)))
                        #expect(replicas[index].scalars == expected, "seed \(seed): a local delete")
                    }
                }
            }
            for index in replicas.indices where random.chance(0.5) {
                for op in made.shuffled(using: &random).prefix(Int.random(in: 0...made.count, using: &random)) {
                    replicas[index].apply(op)
                }
            }
        }
        var delivery = made + made.filter { _ in random.chance(0.1) }
        delivery.shuffle(using: &random)
        var tree = TextSequence()
        var naive = NaiveTextSequence()
        for op in delivery {
            tree.apply(op)
            naive.apply(op)
        }
        #expect(!tree.isWaiting && !naive.isWaiting, "seed \(seed)")
        #expect(
            tree.items == Self.items(naive),
            "seed \(seed): the tree reads \(tree.string.debugDescription), the reference \(naive.string.debugDescription). Replay with EASEL_SEED=\(seed)"
        )
        #expect(tree.count == naive.count && tree.scalars == naive.scalars, "seed \(seed)")
        return tree
    }

    @Test func theRunTreeAgreesWithThePlainReferenceOnRandomHistories() {
        for seed in propertySeeds(count: 2_000, label: "text tree against reference") {
            checkRandomHistory(seed: seed, replicaCount: 3, rounds: 4, editsPerRound: 0...3)
        }
    }

    @Test func theRunTreeAgreesWithThePlainReferenceWhenTheTreeGrowsSeveralLevels() {
        // Thousands of short runs at random places: leaves and inner nodes
        // split many times over.
        for seed in propertySeeds(count: 2, label: "text tree deep") {
            let tree = checkRandomHistory(seed: seed, replicaCount: 3, rounds: 30, editsPerRound: 20...40).tree
            #expect(tree.innerCount > 2, "seed \(seed): a tree of three levels or more")
        }
    }

    @Test func aTextTypedAKeyAtATimeInOnePlaceIsOneRun() {
        var text = TextSequence()
        let replica = ReplicaID(rawValue: 7)
        for (offset, scalar) in "hello world".unicodeScalars.enumerated() {
            text.insert([scalar], at: offset, id: OpID(counter: UInt64(offset + 1), replica: replica))
        }
        var spans = 0
        text.tree.forEachSpan { _ in spans += 1 }
        #expect(text.string == "hello world")
        #expect(spans == 1)
    }

    @Test func aLargeTextKeepsCountsAndPositionsRightThroughEveryLevel() {
        var text = TextSequence()
        var plain: [Unicode.Scalar] = []
        var random = SeededRandom(seed: 31)
        // One key at a time at random places: every key its own span.
        for counter in 1...5_000 {
            let position = Int.random(in: 0...plain.count, using: &random)
            let scalar = Unicode.Scalar(UInt8.random(in: 97...122, using: &random))
            text.insert([scalar], at: position, id: OpID(counter: UInt64(counter), replica: ReplicaID(rawValue: 3)))
            plain.insert(scalar, at: position)
        }
        #expect(text.tree.innerCount > 16)
        #expect(text.scalars == plain)
        for _ in 0..<500 {
            let start = Int.random(in: 0..<plain.count, using: &random)
            let end = min(plain.count, start + Int.random(in: 1...8, using: &random))
            text.delete(start..<end)
            plain.removeSubrange(start..<end)
        }
        #expect(text.scalars == plain && text.count == plain.count)
    }
}
