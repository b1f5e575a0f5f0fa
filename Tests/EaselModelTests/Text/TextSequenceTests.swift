@testable import EaselModel
import EaselTestSupport
import Testing

/// The text CRDT's ordering: the interleaving puzzles of the literature
/// (josephg/reference-crdts, test.ts, and the Fugue paper's figure 7), each
/// under every order its ops may arrive in; and replicas that type and
/// delete at random, converging.
@Suite struct TextSequenceTests {
    /// Replicas named as the reference tests name agents; their numbers
    /// keep the agents' order ("1" < "A" < "B" < … < "X" < "Y").
    static let replicas: [Character: UInt64] = [
        "1": 1, "A": 10, "B": 11, "C": 12, "D": 13, "X": 30, "Y": 31,
    ]

    /// One character's insert: `name` is what it reads as; ids are
    /// (agent, counter) as the reference tests write them.
    struct Char {
        var name: String
        var id: (Character, UInt64)
        var left: (Character, UInt64)?
        var right: (Character, UInt64)?
    }

    static func opID(_ id: (Character, UInt64)) -> OpID {
        OpID(counter: id.1 + 1, replica: ReplicaID(rawValue: replicas[id.0] ?? 99))
    }

    static func op(_ char: Char) -> TextInsert {
        TextInsert(
            id: opID(char.id), originLeft: char.left.map(opID), originRight: char.right.map(opID),
            scalars: [Unicode.Scalar(UInt8(ascii: "a"))])
    }

    /// Every order the ops may arrive in (an op only after its origins,
    /// though arriving earlier would only make it wait), each giving
    /// `expected`.
    private func expectEveryOrder(_ chars: [Char], give expected: [String]) {
        let names = Dictionary(uniqueKeysWithValues: chars.map { (Self.opID($0.id), $0.name) })
        var orders = 0
        func permute(_ remaining: [Int], _ text: TextSequence) {
            if remaining.isEmpty {
                orders += 1
                #expect(text.items.map { names[$0.id] ?? "?" } == expected)
                return
            }
            for (offset, index) in remaining.enumerated() {
                var next = text
                next.apply(.insert(Self.op(chars[index])))
                var rest = remaining
                rest.remove(at: offset)
                permute(rest, next)
            }
        }
        permute(Array(chars.indices), TextSequence())
        #expect(orders > 0)
    }

    @Test func twoReplicasTypingForwardAtOnePlaceKeepTheirRunsWhole() {
        expectEveryOrder(
            [
                Char(name: "a1", id: ("A", 0), left: nil, right: nil),
                Char(name: "a2", id: ("A", 1), left: ("A", 0), right: nil),
                Char(name: "a3", id: ("A", 2), left: ("A", 1), right: nil),
                Char(name: "b1", id: ("B", 0), left: nil, right: nil),
                Char(name: "b2", id: ("B", 1), left: ("B", 0), right: nil),
                Char(name: "b3", id: ("B", 2), left: ("B", 1), right: nil),
            ], give: ["a1", "a2", "a3", "b1", "b2", "b3"])
    }

    @Test func runsStayWholeWhateverReplicasTypedTheirCharacters() {
        expectEveryOrder(
            [
                Char(name: "a1", id: ("A", 0), left: nil, right: nil),
                Char(name: "a2", id: ("X", 0), left: ("A", 0), right: nil),
                Char(name: "a3", id: ("Y", 0), left: ("X", 0), right: nil),
                Char(name: "b1", id: ("B", 0), left: nil, right: nil),
                Char(name: "b2", id: ("C", 0), left: ("B", 0), right: nil),
                Char(name: "b3", id: ("D", 0), left: ("C", 0), right: nil),
            ], give: ["a1", "a2", "a3", "b1", "b2", "b3"])
    }

    @Test func twoReplicasTypingBackwardAtOnePlaceKeepTheirRunsWhole() {
        expectEveryOrder(
            [
                Char(name: "a3", id: ("A", 0), left: nil, right: nil),
                Char(name: "a2", id: ("A", 1), left: nil, right: ("A", 0)),
                Char(name: "a1", id: ("A", 2), left: nil, right: ("A", 1)),
                Char(name: "b3", id: ("B", 0), left: nil, right: nil),
                Char(name: "b2", id: ("B", 1), left: nil, right: ("B", 0)),
                Char(name: "b1", id: ("B", 2), left: nil, right: ("B", 1)),
            ], give: ["a1", "a2", "a3", "b1", "b2", "b3"])
        expectEveryOrder(
            [
                Char(name: "a2", id: ("A", 0), left: nil, right: nil),
                Char(name: "a1", id: ("X", 0), left: nil, right: ("A", 0)),
                Char(name: "b2", id: ("B", 0), left: nil, right: nil),
                Char(name: "b1", id: ("B", 1), left: nil, right: ("B", 0)),
            ], give: ["a1", "a2", "b1", "b2"])
    }

    @Test func tailsTypedBothWaysFromEachOfTwoCharactersStayWithTheirCharacter() {
        for otherAgent: Character in ["B", "1"] {
            expectEveryOrder(
                [
                    Char(name: "a", id: ("A", 0), left: nil, right: nil),
                    Char(name: "a0", id: ("A", 1), left: nil, right: ("A", 0)),
                    Char(name: "a1", id: ("A", 2), left: ("A", 0), right: nil),
                    Char(name: "b", id: ("B", 0), left: nil, right: nil),
                    Char(name: "b0", id: (otherAgent, otherAgent == "B" ? 1 : 0), left: nil, right: ("B", 0)),
                    Char(name: "b1", id: ("B", 2), left: ("B", 0), right: nil),
                ], give: ["a0", "a", "a1", "b0", "b", "b1"])
        }
    }

    @Test func aLocalInsertBetweenTwoCharactersStaysBetweenThemWhateverArrivesBeside() {
        expectEveryOrder(
            [
                Char(name: "a", id: ("A", 0), left: nil, right: nil),
                Char(name: "b", id: ("B", 0), left: nil, right: nil),
                Char(name: "c", id: ("C", 0), left: nil, right: nil),
                Char(name: "d", id: ("D", 0), left: ("A", 0), right: ("C", 0)),
            ], give: ["a", "d", "b", "c"])
    }

    @Test func theOrderIsFugueMaxsNotFugues() {
        // The Fugue paper's figure 7: plain Fugue puts Y before X when Y's
        // replica is lower; FugueMax (and YjsMod) always gives A X Y B C.
        for (x, y): (Character, Character) in [("X", "Y"), ("Y", "X")] {
            expectEveryOrder(
                [
                    Char(name: "A", id: ("A", 0), left: nil, right: nil),
                    Char(name: "B", id: ("B", 0), left: nil, right: nil),
                    Char(name: "C", id: ("C", 0), left: nil, right: nil),
                    Char(name: "X", id: (x, 0), left: ("A", 0), right: ("C", 0)),
                    Char(name: "Y", id: (y, 0), left: ("A", 0), right: ("B", 0)),
                ], give: ["A", "X", "Y", "B", "C"])
        }
    }

    @Test func twoPeopleTypingIntoOneTextAtOnceBothKeepEveryCharacter() {
        var ann = TextSequence()
        let base = ann.insert(Array("Meeting notes".unicodeScalars), at: 0, id: OpID(counter: 1, replica: ReplicaID(rawValue: 1)))
        var bob = TextSequence()
        bob.apply(.insert(base))
        let fromAnn = ann.insert(Array(" from Ann".unicodeScalars), at: 13, id: OpID(counter: 20, replica: ReplicaID(rawValue: 1)))
        let byBob = bob.insert(Array(" by Bob!!".unicodeScalars), at: 13, id: OpID(counter: 20, replica: ReplicaID(rawValue: 2)))
        ann.apply(.insert(byBob))
        bob.apply(.insert(fromAnn))
        #expect(ann.string == "Meeting notes from Ann by Bob!!")
        #expect(bob == ann)
    }

    @Test func localEditsReadAsTheSameEditsOnAPlainString() {
        for seed in propertySeeds(count: 200, label: "text local edits") {
            var random = SeededRandom(seed: seed)
            var text = TextSequence()
            var plain: [Unicode.Scalar] = []
            var counter: UInt64 = 1
            for _ in 0..<60 {
                if plain.isEmpty || random.chance(0.65) {
                    let position = Int.random(in: 0...plain.count, using: &random)
                    let typed = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                        Unicode.Scalar(UInt8.random(in: 97...122, using: &random))
                    }
                    text.insert(typed, at: position, id: OpID(counter: counter, replica: ReplicaID(rawValue: 5)))
                    counter += UInt64(typed.count)
                    plain.insert(contentsOf: typed, at: position)
                } else {
                    let start = Int.random(in: 0..<plain.count, using: &random)
                    let end = Int.random(in: start...min(plain.count, start + 3), using: &random)
                    text.delete(start..<end)
                    plain.removeSubrange(start..<end)
                }
                #expect(text.scalars == plain && text.count == plain.count, "seed \(seed)")
            }
        }
    }

    @Test func threeReplicasTypingAndDeletingAtOnceConvergeWhateverTheOrderAndDuplicates() {
        let seeds = Int(environment("EASEL_TEXT_SEEDS") ?? "") ?? 10_000
        for seed in propertySeeds(count: seeds, label: "text convergence") {
            var random = SeededRandom(seed: seed)
            var replicas = [TextSequence(), TextSequence(), TextSequence()]
            var counters: [UInt64] = [1, 1, 1]
            var made: [TextOp] = []
            for _ in 0..<4 {
                // Each replica edits its own copy, then some ops travel.
                for index in replicas.indices {
                    for _ in 0..<Int.random(in: 0...2, using: &random) {
                        let text = replicas[index]
                        if text.count == 0 || random.chance(0.7) {
                            let typed = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                                Unicode.Scalar(UInt8(ascii: "a") + UInt8(index))
                            }
                            let id = OpID(counter: counters[index], replica: ReplicaID(rawValue: UInt64(index + 1)))
                            counters[index] += UInt64(typed.count)
                            made.append(
                                .insert(
                                    replicas[index].insert(
                                        typed, at: Int.random(in: 0...text.count, using: &random), id: id)))
                        } else {
                            let start = Int.random(in: 0..<text.count, using: &random)
                            let end = min(text.count, start + Int.random(in: 1...2, using: &random))
                            made.append(.delete(replicas[index].delete(start..<end)))
                        }
                    }
                }
                for index in replicas.indices where random.chance(0.5) {
                    for op in made.shuffled(using: &random).prefix(Int.random(in: 0...made.count, using: &random)) {
                        replicas[index].apply(op)
                    }
                }
            }
            // Everything reaches everyone, in a random order, some twice.
            for index in replicas.indices {
                var delivery = made + made.filter { _ in random.chance(0.2) }
                delivery.shuffle(using: &random)
                for op in delivery { replicas[index].apply(op) }
            }
            let first = replicas[0]
            for (index, replica) in replicas.enumerated() {
                #expect(!replica.isWaiting, "seed \(seed): replica \(index) still waits")
                #expect(
                    replica == first,
                    "seed \(seed): replica \(index) reads \(replica.string.debugDescription), replica 0 \(first.string.debugDescription). Replay with EASEL_SEED=\(seed)"
                )
            }
            if replicas.contains(where: { $0 != first }) { return }
        }
    }
}
