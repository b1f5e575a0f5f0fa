import EaselModel
import EaselProtocol
import EaselReplay
import EaselTestSupport
import Testing

/// `--diff`: where two histories part, and what differs there.
@Suite struct HistoryDiffTests {
    @Test func aChangedOpIsFoundAtItsPositionWithTheFieldThatDiffers() throws {
        var found = 0
        for seed in propertySeeds(count: 20, label: "diff") {
            let history = recordedSession(seed: seed)
            var random = SeededRandom(seed: seed)
            let from = Int.random(in: 0..<max(1, history.ops.count), using: &random)
            guard
                let target = history.ops[from...].first(where: { logged in
                    if case .set(_, .x) = logged.op.action { true } else { false }
                })
            else { continue }
            // Only a set that wins its register changes the state.
            let states = statesByNaiveReplay(history)
            guard states[Int(target.position) - 1].stateHash != states[Int(target.position)].stateHash else { continue }
            var op = target.op
            op.action = .set(op.entity, .x(-4321))
            let changed = planting(op, at: target.position, in: history)
            let diff = try HistoryDiff(history, changed)
            guard case .differ(let position, _, let right, let differences) = diff.outcome else {
                Issue.record("seed \(seed): no difference found")
                continue
            }
            #expect(position == target.position, "seed \(seed)")
            #expect(right?.op == op)
            #expect(differences.first?.id == op.entity)
            #expect(differences.first?.fields.contains { $0.name == "x" && $0.right == "-4321" } == true)
            found += 1
        }
        #expect(found >= 10)
    }

    @Test func identicalHistoriesAreTheSameThroughTheirHeads() throws {
        let history = recordedSession(seed: 3)
        let diff = try HistoryDiff(history, history)
        guard case .same(let through) = diff.outcome else {
            Issue.record("identical histories differ")
            return
        }
        #expect(through == history.head)
        #expect(diff.headsAgree)
    }

    @Test func concurrentOpsInAnotherOrderDifferOnTheWayButAgreeAtTheEnd() throws {
        let a = ReplicaID(rawValue: 0xA)
        let b = ReplicaID(rawValue: 0xB)
        let apple = EntityID(OpID(counter: 1, replica: a))
        func op(_ counter: UInt64, _ replica: ReplicaID, _ action: Op.Action) -> Op {
            let id = OpID(counter: counter, replica: replica)
            return Op(id: id, transaction: TransactionID(id), action: action)
        }
        let ops = [
            op(1, a, .create(.emoji, [.character("🍎")])), op(2, a, .set(apple, .x(10))), op(2, b, .set(apple, .y(20))),
        ]
        func history(_ order: [Op]) -> OpHistory {
            OpHistory(
                name: "order",
                ops: order.enumerated().map {
                    LoggedOp(position: UInt64($0 + 1), op: $1, author: "u", receivedAt: 0)
                })
        }
        let diff = try HistoryDiff(history(ops), history([ops[0], ops[2], ops[1]]))
        guard case .differ(let position, _, _, let differences) = diff.outcome else {
            Issue.record("the orders give the same states")
            return
        }
        #expect(position == 2)
        #expect(
            differences == [
                EntityDifference(
                    id: apple,
                    fields: [.init(name: "x", left: "10", right: "0"), .init(name: "y", left: "0", right: "20")])
            ])
        #expect(diff.headsAgree)
    }

    @Test func aMissingOpLeavesTheLatestStatesApart() throws {
        let history = recordedSession(seed: 11)
        var shorter = history
        shorter.ops.removeLast()
        let diff = try HistoryDiff(history, shorter)
        guard case .same(let through) = diff.outcome else {
            Issue.record("a prefix differs from its history")
            return
        }
        #expect(through == shorter.head)
        #expect(diff.headsAgree == (try history.document().stateHash == shorter.document().stateHash))
    }
}
