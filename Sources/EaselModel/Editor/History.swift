/// A register one step wrote: a field, or the `alive` flag.
struct RegisterKey: Hashable, Sendable {
    enum Target: Hashable, Sendable {
        case field(FieldID)
        case alive
    }

    var entity: EntityID
    var target: Target
}

/// A register's value before and after a step, and the op that wrote it.
struct RegisterWrite: Hashable, Sendable {
    enum Value: Hashable, Sendable {
        case field(Field)
        case alive(Bool)
    }

    var key: RegisterKey
    var before: Value
    var after: Value
    var stamp: OpID
}

/// One undoable step: a transaction's register writes.
struct HistoryStep: Hashable, Sendable {
    var transaction: TransactionID
    var writes: [RegisterWrite]
}

/// Per-replica undo and redo stacks.
///
/// Undo writes new ops restoring each register's value from before the
/// step, except registers another replica wrote after the step (its edit is
/// never clobbered) and fields of entities no longer visible. Redo does the
/// same the other way. See Docs/editor.md.
struct History: Hashable, Sendable {
    var undoStack: [HistoryStep] = []
    var redoStack: [HistoryStep] = []
    /// The top of the undo stack when the document was last saved.
    var savedTop: TransactionID?
    /// The highest stamp of any other replica's write to each register.
    var foreignWrites: [RegisterKey: OpID] = [:]

    var hasSteps: Bool { !undoStack.isEmpty || !redoStack.isEmpty }

    /// Which stack a revert takes its step from.
    enum Direction {
        case undo
        case redo
    }

    /// The latest step of the direction's stack, removed from it.
    mutating func popLatest(_ direction: Direction) -> HistoryStep? {
        switch direction {
        case .undo: undoStack.popLast()
        case .redo: redoStack.popLast()
        }
    }

    /// Puts a reverted step's inverse on the other stack.
    mutating func pushInverse(_ inverse: HistoryStep, of direction: Direction) {
        switch direction {
        case .undo: redoStack.append(inverse)
        case .redo: undoStack.append(inverse)
        }
    }

    /// The step `ops` make, read against the document before they apply.
    static func step(for ops: [Op], before document: Document) -> HistoryStep? {
        guard let transaction = ops.first?.transaction else { return nil }
        var writes: [RegisterWrite] = []
        var index: [RegisterKey: Int] = [:]
        var created: Set<EntityID> = []
        func record(
            _ key: RegisterKey, before: @autoclosure () -> RegisterWrite.Value?, after: RegisterWrite.Value, stamp: OpID
        ) {
            if let existing = index[key] {
                writes[existing].after = after
                writes[existing].stamp = stamp
            } else if let before = before() {
                index[key] = writes.count
                writes.append(RegisterWrite(key: key, before: before, after: after, stamp: stamp))
            }
        }
        for op in ops {
            switch op.action {
            case .create:
                created.insert(op.entity)
                record(
                    RegisterKey(entity: op.entity, target: .alive), before: .alive(false), after: .alive(true),
                    stamp: op.id)
            case .set(let entity, let field) where !created.contains(entity):
                record(
                    RegisterKey(entity: entity, target: .field(field.id)),
                    before: document.register(field.id, of: entity).map { .field($0.value) },
                    after: .field(field), stamp: op.id)
            case .delete(let entity), .restore(let entity):
                let alive = if case .restore = op.action { true } else { false }
                record(
                    RegisterKey(entity: entity, target: .alive),
                    before: document.aliveRegister(of: entity).map { .alive($0.alive) },
                    after: .alive(alive), stamp: op.id)
            case .set, .append, .insertText, .deleteText:
                break
            }
        }
        return writes.isEmpty ? nil : HistoryStep(transaction: transaction, writes: writes)
    }

    /// Notes another replica's op, so undo will not clobber what it wrote.
    ///
    /// Nothing to note while both stacks are empty: this replica's clock has
    /// observed the op, so every write it makes later is stamped after it,
    /// and an earlier foreign write never counts as overwriting it.
    mutating func noteForeign(_ op: Op) {
        guard hasSteps else { return }
        let key: RegisterKey
        switch op.action {
        case .set(let entity, let field): key = RegisterKey(entity: entity, target: .field(field.id))
        case .delete(let entity), .restore(let entity): key = RegisterKey(entity: entity, target: .alive)
        case .create, .append, .insertText, .deleteText: return
        }
        if foreignWrites[key].map({ $0 < op.id }) ?? true { foreignWrites[key] = op.id }
    }

    /// Whether another replica wrote the register after `write`.
    func isOverwrittenElsewhere(_ write: RegisterWrite) -> Bool {
        foreignWrites[write.key].map { $0 > write.stamp } ?? false
    }
}
