import EaselModel
import EaselProtocol
import EaselReplay
import EaselTestSupport
import Testing

/// The state at a position is the same however replay gets there: forward,
/// back, jumping, from any checkpoint spacing, or from a compacted base.
@Suite struct TimelineTests {
    @Test func everyPositionInAnyOrderGivesTheStateOfAReplayFromTheStart() throws {
        for seed in propertySeeds(count: 20, label: "timeline") {
            let history = recordedSession(seed: seed)
            let states = statesByNaiveReplay(history)
            var random = SeededRandom(seed: seed)
            var timeline = Timeline(history, interval: Int.random(in: 1...50, using: &random))
            for _ in 0..<60 {
                let position = UInt64.random(in: 0...history.head, using: &random)
                let document = try timeline.document(at: position)
                #expect(document.stateHash == states[Int(position)].stateHash, "seed \(seed), position \(position)")
            }
        }
    }

    @Test func aCompactedHistoryStartsFromItsSnapshotAndRefusesWhatItFolded() throws {
        let full = recordedSession(seed: 9)
        let states = statesByNaiveReplay(full)
        let cut = full.head / 2
        let base = StateSnapshot(position: cut, state: states[Int(cut)].snapshotOps, highWater: [:])
        let compacted = OpHistory(name: full.name, base: base, ops: Array(full.ops[Int(cut)...]))
        var timeline = Timeline(compacted, interval: 7)
        #expect(try timeline.document(at: full.head).stateHash == states[states.count - 1].stateHash)
        #expect(try timeline.document(at: cut + 3).stateHash == states[Int(cut) + 3].stateHash)
        #expect(throws: ReplayError.self) { try timeline.document(at: cut - 1) }
        #expect(throws: ReplayError.self) { try timeline.document(at: full.head + 1) }
    }

    @Test func aLogReadFromJSONLinesReplaysToTheSameState() throws {
        let history = recordedSession(seed: 5)
        let lines =
            [OpLogJSON.encode(.header(.init(document: history.name, epoch: Epoch(rawValue: 1))))]
            + history.ops.map { OpLogJSON.encode(.op($0)) }
        let read = try OpHistory.read(jsonLines: lines)
        #expect(read.ops == history.ops)
        #expect(try read.document().stateHash == history.document().stateHash)
        var broken = lines
        broken.remove(at: 4)  // line 5, position 4
        #expect(throws: ReplayError("line 5: position 5 where 4 belongs")) { try OpHistory.read(jsonLines: broken) }
    }
}
