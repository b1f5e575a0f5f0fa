@testable import EaselModel
import EaselTestSupport
import Testing

/// A text's runs as a snapshot holds them, and ops applied together.
@Suite struct TextSequenceRunsTests {
    /// Three replicas' random edits, each op as it was made, and the text
    /// that has them all.
    static func history(seed: UInt64) -> (ops: [TextOp], text: TextSequence) {
        var random = SeededRandom(seed: seed)
        var replicas = Array(repeating: TextSequence(), count: 3)
        var counters: [UInt64] = [1, 1, 1]
        var made: [TextOp] = []
        for _ in 0..<6 {
            for index in replicas.indices {
                // Typing on a key at a time, backspacing, and jumping about.
                var position = Int.random(in: 0...replicas[index].count, using: &random)
                for _ in 0..<Int.random(in: 0...8, using: &random) {
                    if replicas[index].count == 0 || random.chance(0.7) {
                        position = min(position, replicas[index].count)
                        let id = OpID(counter: counters[index], replica: ReplicaID(rawValue: UInt64(index + 1)))
                        counters[index] += 1
                        made.append(.insert(replicas[index].insert([Unicode.Scalar(UInt8(97 + index))], at: position, id: id)))
                        position += 1
                    } else {
                        position = max(1, min(position, replicas[index].count))
                        made.append(.delete(replicas[index].delete(position - 1..<position)))
                        position -= 1
                    }
                }
            }
            for index in replicas.indices where random.chance(0.6) {
                for op in made { replicas[index].apply(op) }
            }
        }
        var text = TextSequence()
        for op in made { text.apply(op) }
        return (made, text)
    }

    @Test func opsAppliedTogetherLeaveWhatApplyingThemOneByOneLeaves() {
        for seed in propertySeeds(count: 2_000, label: "text ops together") {
            var random = SeededRandom(seed: seed)
            let (ops, oneByOne) = Self.history(seed: seed)
            // In the order made, and in a random one with some ops twice
            // (ops wait for what they name, and are joined only when they
            // arrive one after the other).
            var together = TextSequence()
            together.apply(contentsOf: ops)
            #expect(together == oneByOne, "seed \(seed)")
            var shuffled = ops + ops.filter { _ in random.chance(0.1) }
            shuffled.shuffle(using: &random)
            var scattered = TextSequence()
            scattered.apply(contentsOf: shuffled)
            #expect(scattered == oneByOne && !scattered.isWaiting, "seed \(seed)")
        }
    }

    @Test func aTextLoadedFromItsSnapshotIsTheSameTextAndTakesTheSameOps() {
        for seed in propertySeeds(count: 500, label: "text snapshots") {
            let (_, text) = Self.history(seed: seed)
            let loaded: TextSequence
            do { loaded = try TextSequence(snapshot: TextSnapshot(joining: text.snapshot)) } catch {
                Issue.record("seed \(seed): \(error)")
                continue
            }
            #expect(loaded == text && loaded.string == text.string, "seed \(seed)")
            // It goes on as the original does: a later edit lands alike.
            var original = text
            var copy = loaded
            let later = TextOp.insert(
                original.insert(Array("later".unicodeScalars), at: text.count / 2, id: OpID(counter: 10_000, replica: ReplicaID(rawValue: 9))))
            copy.apply(later)
            #expect(copy == original, "seed \(seed)")
        }
    }

    @Test func aSnapshotCarriesNoScalarsOfDeletedCharacters() {
        var text = TextSequence()
        text.insert(Array("keep gone keep".unicodeScalars), at: 0, id: OpID(counter: 1, replica: ReplicaID(rawValue: 4)))
        text.delete(5..<10)
        let snapshot = TextSnapshot(joining: text.snapshot)
        #expect(snapshot.runs.map(\.isDeleted) == [false, true, false])
        #expect(String(String.UnicodeScalarView(snapshot.scalars)) == "keep keep")
        #expect((try? TextSequence(snapshot: snapshot))?.string == "keep keep")
    }

    @Test func runsAreAsLongAsTheyCanBe() {
        var text = TextSequence()
        let replica = ReplicaID(rawValue: 4)
        for (offset, scalar) in "typed in one go".unicodeScalars.enumerated() {
            text.insert([scalar], at: offset, id: OpID(counter: UInt64(offset + 1), replica: replica))
        }
        text.delete(5..<8)
        // Typed, deleted, typed: three runs, each as long as it goes.
        #expect(text.runs.map(\.isDeleted) == [false, true, false])
        #expect(text.runs.map { $0.insert.scalars.count } == [5, 3, 7])
    }

    @Test func aSnapshotNamingACharacterTwiceOrAnEmptyRunIsRefused() {
        let run = TextSnapshot.Run(
            first: OpID(counter: 1, replica: ReplicaID(rawValue: 2)), count: 3, originLeft: nil, originRight: nil,
            isDeleted: false)
        var overlapping = run
        overlapping.first = OpID(counter: 3, replica: ReplicaID(rawValue: 2))
        let abcabc = Array("abcabc".unicodeScalars)
        #expect(throws: ModelError.self) { try TextSequence(snapshot: TextSnapshot(runs: [run, overlapping], scalars: abcabc)) }
        var empty = run
        empty.count = 0
        #expect(throws: ModelError.self) { try TextSequence(snapshot: TextSnapshot(runs: [empty], scalars: [])) }
        #expect(throws: ModelError.self) { try TextSequence(snapshot: TextSnapshot(runs: [run], scalars: Array("ab".unicodeScalars))) }
        #expect((try? TextSequence(snapshot: TextSnapshot(runs: [run], scalars: Array("abc".unicodeScalars))))?.string == "abc")
    }

    @Test func aSnapshotWhoseRunNamesAnOriginItLacksIsRefused() {
        let replica = ReplicaID(rawValue: 2)
        let first = TextSnapshot.Run(first: OpID(counter: 1, replica: replica), count: 2, originLeft: nil, originRight: nil, isDeleted: false)
        let dangling = TextSnapshot.Run(
            first: OpID(counter: 5, replica: replica), count: 1, originLeft: OpID(counter: 2, replica: replica),
            originRight: OpID(counter: 40, replica: replica), isDeleted: false)
        let abc = Array("abc".unicodeScalars)
        #expect(throws: ModelError.self) { try TextSequence(snapshot: TextSnapshot(runs: [first, dangling], scalars: abc)) }
        var named = dangling
        named.originRight = nil
        #expect((try? TextSequence(snapshot: TextSnapshot(runs: [first, named], scalars: abc)))?.string == "abc")
    }

    @Test func backspacingAndDeletingForwardAKeyAtATimeJoinIntoOneRun() {
        let replica = ReplicaID(rawValue: 3)
        var backspaces = TextDelete(runs: [CharacterRun(first: OpID(counter: 9, replica: replica), count: 1)])
        backspaces.join(TextDelete(runs: [CharacterRun(first: OpID(counter: 8, replica: replica), count: 1)]))
        backspaces.join(TextDelete(runs: [CharacterRun(first: OpID(counter: 7, replica: replica), count: 1)]))
        #expect(backspaces.runs == [CharacterRun(first: OpID(counter: 7, replica: replica), count: 3)])
        var forward = TextDelete(runs: [CharacterRun(first: OpID(counter: 7, replica: replica), count: 1)])
        forward.join(TextDelete(runs: [CharacterRun(first: OpID(counter: 8, replica: replica), count: 2)]))
        forward.join(TextDelete(runs: [CharacterRun(first: OpID(counter: 20, replica: replica), count: 1)]))
        #expect(forward.runs.count == 2 && forward.runs[0].count == 3)
    }
}
