extension Editor {
    /// Undoes this replica's latest step that still has something to undo.
    ///
    /// Writes new ops restoring the values from before the step, skipping
    /// registers another replica wrote since (never clobbering a later edit)
    /// and fields of entities no longer visible. A step left with nothing to
    /// write is dropped and the one before it is tried. Undo of a create
    /// deletes; undo of a delete restores.
    mutating func undo() throws(ModelError) -> [Op] {
        try revertLatest(.undo)
    }

    /// Redoes the latest undone step, with the same care as undo.
    mutating func redo() throws(ModelError) -> [Op] {
        try revertLatest(.redo)
    }

    /// Reverts the latest step of one stack that still writes something,
    /// dropping those that do not, and pushes its inverse onto the other.
    private mutating func revertLatest(_ direction: History.Direction) throws(ModelError) -> [Op] {
        while let step = history.popLatest(direction) {
            let (ops, inverse) = try revert(step)
            if let inverse {
                history.pushInverse(inverse, of: direction)
                return ops
            }
        }
        return []
    }

    /// Writes each register of `step` back to its `before` value, in one
    /// transaction; returns the ops and the step that would revert them.
    private mutating func revert(_ step: HistoryStep) throws(ModelError) -> ([Op], HistoryStep?) {
        var transaction = try clock.beginTransaction()
        var inverse: [RegisterWrite] = []
        for write in step.writes.reversed() {
            guard !history.isOverwrittenElsewhere(write) else { continue }
            let entity = write.key.entity
            let current: RegisterWrite.Value
            switch (write.key.target, write.before) {
            case (.alive, .alive(let alive)):
                guard let register = document.aliveRegister(of: entity), register.alive != alive else { continue }
                current = .alive(register.alive)
                if alive { try transaction.restore(entity) } else { try transaction.delete(entity) }
            case (.field(let field), .field(let value)):
                guard entity == .document || document.isVisible(entity), let register = document.register(field, of: entity),
                    register.value != value
                else { continue }
                current = .field(register.value)
                try transaction.set(value, of: entity)
            default:
                continue
            }
            let stamp = transaction.ops[transaction.ops.count - 1].id
            inverse.append(RegisterWrite(key: write.key, before: current, after: write.before, stamp: stamp))
        }
        var textInverses: [TextEdit] = []
        for edit in step.texts.reversed() where document.isVisible(edit.entity) {
            if let inverse = try revert(edit, in: &transaction) { textInverses.append(inverse) }
        }
        guard !transaction.ops.isEmpty else { return ([], nil) }
        let ops = clock.commit(transaction)
        for op in ops { document.apply(op) }
        pruneEditorState()
        return (ops, HistoryStep(transaction: transaction.id, writes: inverse.reversed(), texts: textInverses.reversed()))
    }

    /// Deletes what `edit` typed that is still there (this replica's own
    /// characters, so never anyone else's), and types again what it
    /// deleted, right after where each run stood; the edit that reverts it.
    private func revert(_ edit: TextEdit, in transaction: inout TransactionBuilder) throws(ModelError) -> TextEdit? {
        let sequence = document.textSequenceForEditing(of: edit.entity)
        var inverse = TextEdit(entity: edit.entity)
        let visible = edit.typed.flatMap { sequence.visibleRuns(of: $0) }
        try transaction.deleteText(inChunks: visible, of: edit.entity)
        inverse.deleted = visible.map { TextEdit.Deleted(run: $0, scalars: sequence.scalars(of: $0)) }
        for deleted in edit.deleted where !deleted.scalars.isEmpty {
            // Right after the run's last character, deleted, where it stood.
            let left = deleted.run.first.advanced(by: deleted.run.count - 1)
            inverse.typed += try transaction.insertText(
                inChunks: deleted.scalars, into: edit.entity, after: left, before: sequence.id(after: left))
        }
        return inverse.typed.isEmpty && inverse.deleted.isEmpty ? nil : inverse
    }
}
