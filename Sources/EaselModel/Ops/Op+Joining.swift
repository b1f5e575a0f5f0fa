extension Op {
    /// Takes `next` into this op when one op can say both: keys typed on
    /// from this insert's last character toward the same right origin, or
    /// characters deleted of the same text after this delete's. Both must
    /// be this replica's, unsent, each its transaction's only op (the
    /// caller knows); `next` is numbered after this op. An outbox joins
    /// typing this way before it sends, as Loro and Yrs encode runs: fewer
    /// ops on the wire, in the log and to merge, with the same characters
    /// and the same IDs. False, and nothing changes, when they do not join.
    public mutating func join(_ next: Op) -> Bool {
        guard next.id.replica == id.replica, next.id.counter > lastCounter else { return false }
        switch (action, next.action) {
        case (.insertText(let entity, let insertion), .insertText(let nextEntity, let typed)):
            let count = insertion.scalars.count
            guard entity == nextEntity, count > 0, next.id == id.advanced(by: count),
                typed.originLeft == id.advanced(by: count - 1), typed.originRight == insertion.originRight,
                count + typed.scalars.count <= ModelLimits.scalarsPerInsert
            else { return false }
            action = .insertText(entity, insertion.appending(typed.scalars))
            return true
        case (.deleteText(let entity, let runs), .deleteText(let nextEntity, let nextRuns)):
            guard entity == nextEntity else { return false }
            var joined = TextDelete(runs: runs)
            joined.join(TextDelete(runs: nextRuns))
            guard joined.runs.count <= ModelLimits.runsPerDelete else { return false }
            action = .deleteText(entity, Array(joined.runs))
            return true
        default:
            return false
        }
    }
}
