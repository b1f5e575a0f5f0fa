extension Editor {
    /// Replaces the document with `base` (a snapshot from the server) plus
    /// this replica's own ops that `base` may not hold yet, keeping the
    /// clock, the undo history and whatever editor state still applies.
    ///
    /// What `base` lacks of the old document is gone: a snapshot is the
    /// committed truth, and the unacknowledged ops are all this replica
    /// still has to add to it.
    ///
    /// Undo learns every register another replica holds in `base`, as it
    /// would have from those writes arriving one by one, so it never
    /// clobbers an edit that came only through the snapshot. O(n) in the
    /// size of `base`.
    public mutating func rebase(onto base: Document, reapplying unacknowledged: some Sequence<Op>) {
        // With nothing to undo or redo there is nothing to protect (see
        // History.noteForeign), and no snapshot to build for it.
        if history.hasSteps {
            for op in base.snapshotOps where op.id.replica != replica { history.noteForeign(op) }
        }
        document = base
        for op in unacknowledged { document.apply(op) }
        clock.observe(document.highestCounter)
        pruneEditorState()
    }
}
