import EaselModel
import EaselProtocol

/// What `--check` found over a history.
public struct CheckReport: Sendable {
    /// Ops checked.
    public var checked: Int
    /// The broken rules, in log order, at most `limit` of them.
    public var violations: [Violation]
    /// All broken rules, including those past `limit`.
    public var total: Int

    public var first: Violation? { violations.first }
}

extension OpHistory {
    /// Checks every op up to `last` (the head when nil) against the
    /// invariants, keeping the first `limit` violations. A compacted log's
    /// snapshot is taken as given: its ops were checked when they arrived.
    public func check(until last: UInt64? = nil, limit: Int = 100) throws(ReplayError) -> CheckReport {
        let last = last ?? head
        try checkReachable(last)
        var checker = InvariantChecker(highWater: base?.highWater ?? [:])
        var document = baseDocument
        var report = CheckReport(checked: 0, violations: [], total: 0)
        for logged in ops where logged.position <= last {
            let found = checker.check(logged.op, at: logged.position, on: document)
            report.total += found.count
            report.violations += found.prefix(max(0, limit - report.violations.count))
            report.checked += 1
            document.apply(logged.op)
        }
        return report
    }
}
