extension Editor {
    /// Whether bring forward would move anything: some selected entity has
    /// an unselected visible entity above it.
    public var canBringForward: Bool {
        !state.selection.isEmpty && document.hasOther(than: state.selection, beyondOneOf: true)
    }

    /// Whether send backward would move anything.
    public var canSendBackward: Bool {
        !state.selection.isEmpty && document.hasOther(than: state.selection, beyondOneOf: false)
    }

    /// Moves each selected entity past the nearest unselected visible entity
    /// above it (or below it), keeping the selection's own order. One
    /// transaction of z-key sets.
    mutating func moveSelectionInZOrder(upwards: Bool) throws(ModelError) -> [Op] {
        var scratch = document
        let selection = state.selection
        return try transaction { _, transaction throws(ModelError) in
            // The entity nearest the destination moves first, so the others
            // find their neighbour where it now is.
            let movers =
                upwards
                ? scratch.zOrder.filter(selection.contains).reversed() : scratch.zOrder.filter(selection.contains)
            for mover in movers {
                let order = scratch.zOrder
                guard let index = order.firstIndex(of: mover) else { continue }
                let passed: EntityID?
                let anchor: EntityID?
                if upwards {
                    passed = order[(index + 1)...].first { !selection.contains($0) }
                    anchor = passed
                } else {
                    passed = order[..<index].last { !selection.contains($0) }
                    anchor = passed.flatMap { passed in order.firstIndex(of: passed) }.flatMap {
                        $0 > 0 ? order[$0 - 1] : nil
                    }
                }
                guard passed != nil else { continue }
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
