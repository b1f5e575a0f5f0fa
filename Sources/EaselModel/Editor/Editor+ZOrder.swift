extension Editor {
    /// Whether bring forward would move anything: some selected entity has
    /// an unselected entity that overlaps it above it, before the next
    /// selected one.
    public var canBringForward: Bool {
        !state.selection.isEmpty && document.hasOverlapping(beyond: state.selection, upwards: true)
    }

    /// Whether send backward would move anything: the same, below.
    public var canSendBackward: Bool {
        !state.selection.isEmpty && document.hasOverlapping(beyond: state.selection, upwards: false)
    }

    /// Whether bring to front would move anything: an unselected visible
    /// entity lies above some selected one.
    public var canBringToFront: Bool {
        !state.selection.isEmpty && document.hasOther(than: state.selection, beyondOneOf: true)
    }

    /// Whether send to back would move anything.
    public var canSendToBack: Bool {
        !state.selection.isEmpty && document.hasOther(than: state.selection, beyondOneOf: false)
    }

    /// Moves each selected entity past the nearest unselected entity above
    /// it (or below it) that overlaps it, as Excalidraw and Figma do: a step
    /// always changes what is seen, and an entity nothing overlaps stays, as
    /// does one that would pass another selected entity (the selection
    /// keeps its own order). One transaction of z-key sets.
    mutating func moveSelectionInZOrder(upwards: Bool) throws(ModelError) -> [Op] {
        try restack(upwards: upwards) { scratch, mover, selection in
            guard let passed = scratch.nearestOverlapping(mover, upwards: upwards, before: selection) else {
                return nil
            }
            return upwards ? .some(passed) : .some(scratch.entity(below: passed))
        }
    }

    /// Moves the selection to the top (or the bottom) of the z-order,
    /// keeping its own order; what is already past every unselected entity
    /// stays. One transaction of z-key sets.
    mutating func moveSelectionToEnd(front: Bool) throws(ModelError) -> [Op] {
        let selection = state.selection
        let unselected = document.zOrder.filter { !selection.contains($0) }
        guard let boundary = front ? unselected.last : unselected.first else { return [] }
        return try restack(upwards: front) { scratch, mover, _ in
            if front { return scratch.isBelow(mover, boundary) ? .some(boundary) : nil }
            return scratch.isBelow(boundary, mover) ? .some(scratch.entity(below: boundary)) : nil
        }
    }

    /// Re-keys each selected entity, the one nearest the destination first
    /// (so the others find their neighbours where they now are), to lie just
    /// above the anchor `destination` names (`.some(nil)`: the bottom), or
    /// leaves it where it is (`nil`).
    private mutating func restack(
        upwards: Bool,
        destination: (Document, EntityID, Set<EntityID>) -> EntityID??
    ) throws(ModelError) -> [Op] {
        var scratch = document
        let selection = state.selection
        return try transaction { _, transaction throws(ModelError) in
            let order = scratch.zOrder.filter(selection.contains)
            for mover in upwards ? order.reversed() : order {
                guard let anchor = destination(scratch, mover, selection) else { continue }
                let applied = transaction.ops.count
                let placement = try scratch.zPlacement(above: anchor, jitter: Self.jitter(for: try transaction.nextID))
                for rekey in placement.rekeys where rekey.entity != mover {
                    try transaction.set(.zKey(rekey.key), of: rekey.entity)
                }
                try transaction.set(.zKey(placement.key), of: mover)
                for op in transaction.ops[applied...] { scratch.apply(op) }
            }
        }
    }
}
