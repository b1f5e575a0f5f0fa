import EaselModel
import EaselProtocol
import EaselReplay
import EaselTestSupport
import Testing

/// `--check`: a history of ordinary edits breaks no rule, and a fault
/// planted at a position is reported at exactly that position.
@Suite struct InvariantCheckTests {
    @Test func ordinaryEditingByManyEditorsBreaksNoInvariant() throws {
        for seed in propertySeeds(count: 20, label: "clean check") {
            let history = recordedSession(seed: seed)
            let report = try history.check()
            #expect(report.checked == history.ops.count)
            #expect(report.violations.isEmpty, "seed \(seed): \(report.violations.prefix(3))")
        }
    }

    /// Plants `fault` (made from the op found there) at the first position
    /// past a random point whose op `where` picks, and expects the check to
    /// report `invariant` there first.
    private func expectPlanted(
        _ invariant: Invariant, label: String, where picks: (LoggedOp) -> Bool,
        fault: (LoggedOp, OpHistory) -> Op
    ) throws {
        var planted = 0
        for seed in propertySeeds(count: 20, label: label) {
            let history = recordedSession(seed: seed, steps: 250)
            var random = SeededRandom(seed: seed)
            let from = Int.random(in: 0..<max(1, history.ops.count / 2), using: &random)
            guard let target = history.ops[from...].first(where: picks) else { continue }
            let faulty = planting(fault(target, history), at: target.position, in: history)
            let report = try faulty.check()
            #expect(report.first?.position == target.position, "seed \(seed): \(report.violations.prefix(2))")
            #expect(report.first?.invariant == invariant, "seed \(seed): \(report.violations.prefix(2))")
            planted += 1
        }
        #expect(planted >= 10, "too few histories had an op to plant the fault in")
    }

    @Test func aNumberOutOfRangeIsReportedAtItsPosition() throws {
        try expectPlanted(
            .inRange, label: "planted scale", where: { if case .set = $0.op.action { true } else { false } }
        ) {
            logged, _ in
            var op = logged.op
            op.action = .set(op.entity, .scale(0))
            return op
        }
    }

    @Test func anOpOnAnEntityNeverCreatedIsReportedAtItsPosition() throws {
        try expectPlanted(
            .acceptable, label: "planted stranger", where: { if case .set = $0.op.action { true } else { false } }
        ) {
            logged, _ in
            var op = logged.op
            let stranger = EntityID(OpID(counter: 1, replica: ReplicaID(rawValue: 0xDEAD)))
            op.action = .set(stranger, .x(10))
            return op
        }
    }

    @Test func anAppendThatLeavesAGapIsReportedAtItsPosition() throws {
        try expectPlanted(
            .contiguousAppends, label: "planted gap", where: { if case .append = $0.op.action { true } else { false } }
        ) {
            logged, _ in
            var op = logged.op
            guard case .append(let entity, let start, let samples) = op.action else { return op }
            op.action = .append(entity, start: start + 3, samples: samples)
            return op
        }
    }

    @Test func aSecondCreateOfOneEntityIsReportedAtItsPosition() throws {
        try expectPlanted(.keys, label: "planted re-create", where: { $0.position > 1 }) { logged, history in
            // The op takes the ID of the first create in the log.
            let first = history.ops.first { if case .create = $0.op.action { true } else { false } }?.op
            return first.map { Op(id: $0.id, transaction: $0.transaction, action: $0.action) } ?? logged.op
        }
    }

    @Test func anEmojiOfTwoCharactersIsReportedAtItsPosition() throws {
        try expectPlanted(
            .strings, label: "planted emoji",
            where: { logged in
                if case .create(.emoji, _) = logged.op.action { true } else { false }
            }
        ) { logged, _ in
            var op = logged.op
            guard case .create(.emoji, var fields) = op.action else { return op }
            fields = fields.map { if case .character = $0 { .character("🍎🍐") } else { $0 } }
            op.action = .create(.emoji, fields)
            return op
        }
    }

    @Test func theCheckStopsAtUntilAndCountsEveryBrokenRule() throws {
        let history = recordedSession(seed: 42, steps: 200)
        var faulty = history
        for index in [10, 20, 30] where index < faulty.ops.count {
            faulty.ops[index].op.action = .set(faulty.ops[index].op.entity, .x(2e7))
        }
        let all = try faulty.check()
        #expect(all.total >= 3)
        #expect(all.first?.position == 11)
        let early = try faulty.check(until: 15)
        #expect(early.checked == 15)
        #expect(early.violations.allSatisfy { $0.position <= 15 })
    }
}
