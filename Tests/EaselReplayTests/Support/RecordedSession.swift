import EaselModel
import EaselProtocol
import EaselReplay
import EaselTestSupport

/// A history as a server would record it: several editors make random
/// edits, each op is logged as it is made, and every few steps each editor
/// catches up on what the others did.
func recordedSession(seed: UInt64, editors count: Int = 3, steps: Int = 150) -> OpHistory {
    var random = SeededRandom(seed: seed)
    var editors = (0..<count).map { Editor(replica: ReplicaID(rawValue: 0xA0 + UInt64($0))) }
    var seen = [Int](repeating: 0, count: count)
    var log: [LoggedOp] = []
    for step in 0..<steps {
        let who = Int.random(in: 0..<count, using: &random)
        if let input = RandomEditing.next(for: editors[who], using: &random),
            let ops = try? editors[who].apply(input)
        {
            for op in ops {
                log.append(
                    LoggedOp(
                        position: UInt64(log.count + 1), op: op, author: "user-\(who)",
                        receivedAt: 1_795_000_000_000 + Int64(step) * 250))
            }
            seen[who] = max(seen[who], log.count)
        }
        if step % 5 == 4 {
            for index in editors.indices {
                editors[index].receive(log[seen[index]...].map(\.op))
                seen[index] = log.count
            }
        }
    }
    return OpHistory(name: "recorded/\(seed)", ops: log)
}

/// The state after every position, the slow and obviously right way.
func statesByNaiveReplay(_ history: OpHistory) -> [Document] {
    var document = history.baseDocument
    var states = [document]
    for logged in history.ops {
        document.apply(logged.op)
        states.append(document)
    }
    return states
}

/// The history with the op at `position` replaced.
func planting(_ op: Op, at position: UInt64, in history: OpHistory) -> OpHistory {
    var changed = history
    let index = Int(position - history.earliest - 1)
    changed.ops[index].op = op
    return changed
}
