import EaselModel
import EaselProtocol

/// Where two histories of a document part: the first position after which
/// their states differ, with what differs.
public struct HistoryDiff: Sendable {
    public enum Outcome: Sendable {
        /// Every position both hold gives the same state.
        case same(through: UInt64)
        case differ(at: UInt64, left: LoggedOp?, right: LoggedOp?, differences: [EntityDifference])
    }

    public var outcome: Outcome
    public var leftHead: UInt64
    public var rightHead: UInt64
    /// Whether the two latest states agree (logs in different orders
    /// converge; a lost op does not).
    public var headsAgree: Bool

    /// Replays both from the later of their starting points. Ops that are
    /// equal leave equal states equal, so states are compared only after a
    /// position where the ops differ.
    public init(_ left: OpHistory, _ right: OpHistory) throws(ReplayError) {
        let start = max(left.earliest, right.earliest)
        let end = min(left.head, right.head)
        leftHead = left.head
        rightHead = right.head
        guard start <= end else {
            throw ReplayError(
                "the histories share no position: one ends at \(min(left.head, right.head)) and the other starts at \(start)"
            )
        }
        var leftDocument = try left.document(at: start)
        var rightDocument = try right.document(at: start)
        var found: Outcome? = nil
        if leftDocument.stateHash != rightDocument.stateHash {
            found = .differ(
                at: start, left: nil, right: nil, differences: leftDocument.differences(from: rightDocument))
        }
        var mayDiffer = false
        var position = start
        while found == nil, position < end {
            position += 1
            let leftOp = left.op(at: position)
            let rightOp = right.op(at: position)
            if let leftOp { leftDocument.apply(leftOp.op) }
            if let rightOp { rightDocument.apply(rightOp.op) }
            mayDiffer = mayDiffer || leftOp?.op != rightOp?.op
            if mayDiffer, leftDocument.stateHash != rightDocument.stateHash {
                found = .differ(
                    at: position, left: leftOp, right: rightOp,
                    differences: leftDocument.differences(from: rightDocument))
            }
        }
        outcome = found ?? .same(through: end)
        // On from where the walk stopped, rather than replaying both again.
        for logged in left.ops where logged.position > position { leftDocument.apply(logged.op) }
        for logged in right.ops where logged.position > position { rightDocument.apply(logged.op) }
        headsAgree = leftDocument.stateHash == rightDocument.stateHash
    }
}
