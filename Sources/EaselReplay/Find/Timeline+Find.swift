import EaselModel

/// Where `--find` found a predicate first, and how it searched.
public struct FindResult: Hashable, Sendable {
    public enum Strategy: String, Hashable, Sendable {
        /// Every position in order: right for any predicate.
        case linearScan = "linear scan"
        /// Halving the range: only sound when the predicate is monotone.
        case bisection
    }

    /// The first position where the predicate holds; nil when it never does.
    public var position: UInt64?
    public var strategy: Strategy
    /// How many states the predicate was evaluated on.
    public var evaluations: Int
}

extension Timeline {
    /// The first position in `history.earliest...last` whose state satisfies
    /// `predicate`. A monotone predicate is bisected over the timeline's
    /// checkpoints; any other is tested after every op, because it can hold
    /// and stop holding again (a delete undone).
    public mutating func find(_ predicate: Predicate, until last: UInt64? = nil) throws(ReplayError) -> FindResult {
        let last = last ?? history.head
        try history.checkReachable(last)
        return predicate.isMonotone ? try bisect(predicate, until: last) : scan(predicate, until: last)
    }

    private mutating func scan(_ predicate: Predicate, until last: UInt64) -> FindResult {
        var document = history.baseDocument
        var evaluations = 1
        if predicate.holds(in: document) {
            return FindResult(position: history.earliest, strategy: .linearScan, evaluations: evaluations)
        }
        for logged in history.ops where logged.position <= last {
            document.apply(logged.op)
            passed(logged.position, with: document)
            evaluations += 1
            if predicate.holds(in: document) {
                return FindResult(position: logged.position, strategy: .linearScan, evaluations: evaluations)
            }
        }
        return FindResult(position: nil, strategy: .linearScan, evaluations: evaluations)
    }

    private mutating func bisect(_ predicate: Predicate, until last: UInt64) throws(ReplayError) -> FindResult {
        var evaluations = 1
        guard predicate.holds(in: try document(at: last)) else {
            return FindResult(position: nil, strategy: .bisection, evaluations: evaluations)
        }
        // Invariant: the predicate holds at `high` and not before `low`.
        var low = history.earliest
        var high = last
        while low < high {
            let middle = low + (high - low) / 2
            evaluations += 1
            if predicate.holds(in: try document(at: middle)) { high = middle } else { low = middle + 1 }
        }
        return FindResult(position: high, strategy: .bisection, evaluations: evaluations)
    }
}
