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

/// Characters one step typed and deleted in one text. Undo deletes what
/// it typed (its own characters: never anyone else's) and types again what
/// it deleted, right after where it stood.
struct TextEdit: Hashable, Sendable {
    /// A run of characters the step deleted, and what they read.
    struct Deleted: Hashable, Sendable {
        var run: CharacterRun
        var scalars: [Unicode.Scalar]
    }

    var entity: EntityID
    var typed: [CharacterRun] = []
    var deleted: [Deleted] = []
    /// The left origin of the first characters typed, and the first and
    /// last typed: what tells typing on, a word at a time.
    var typedAfter: OpID?
    var firstTyped: Unicode.Scalar?
    var lastTyped: Unicode.Scalar?

    var lastTypedID: OpID? { typed.last.map { $0.first.advanced(by: $0.count - 1) } }
}

/// One undoable step: a transaction's register writes, and the characters
/// it typed and deleted.
struct HistoryStep: Hashable, Sendable {
    var transaction: TransactionID
    var writes: [RegisterWrite]
    var texts: [TextEdit] = []

    /// Whether `next` types on from where this step's typing ended, within
    /// a word: then undo takes both back at once. A word ends where a space
    /// or a line break is followed by something else.
    func isContinuedByTyping(_ next: HistoryStep) -> Bool {
        guard writes.isEmpty, next.writes.isEmpty, texts.count == 1, next.texts.count == 1 else { return false }
        let edit = texts[0]
        let more = next.texts[0]
        guard edit.entity == more.entity, edit.deleted.isEmpty, more.deleted.isEmpty,
            let last = edit.lastTyped, let first = more.firstTyped, more.typedAfter == edit.lastTypedID
        else { return false }
        return !(Self.endsWord(last) && !Self.endsWord(first))
    }

    /// The two steps as one.
    func continued(by next: HistoryStep) -> HistoryStep {
        var merged = self
        merged.texts[0].typed += next.texts[0].typed
        merged.texts[0].lastTyped = next.texts[0].lastTyped
        return merged
    }

    static func endsWord(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r"
    }
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
        var texts: [TextEdit] = []
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
            case .insertText(let entity, let insertion):
                let at = textIndex(of: entity, in: &texts)
                if texts[at].typed.isEmpty {
                    texts[at].typedAfter = insertion.originLeft
                    texts[at].firstTyped = insertion.scalars.first
                }
                texts[at].typed.append(CharacterRun(first: op.id, count: insertion.scalars.count))
                texts[at].lastTyped = insertion.scalars.last
            case .deleteText(let entity, let runs):
                let at = textIndex(of: entity, in: &texts)
                let sequence = document.textSequenceForEditing(of: entity)
                for run in runs {
                    // Only what the document read: characters typed in this
                    // same step are simply not typed.
                    for visible in sequence.visibleRuns(of: run) {
                        texts[at].deleted.append(TextEdit.Deleted(run: visible, scalars: sequence.scalars(of: visible)))
                    }
                }
            case .set, .append, .textSnapshot:
                break
            }
        }
        guard !writes.isEmpty || !texts.isEmpty else { return nil }
        return HistoryStep(transaction: transaction, writes: writes, texts: texts)
    }

    private static func textIndex(of entity: EntityID, in texts: inout [TextEdit]) -> Int {
        if let at = texts.firstIndex(where: { $0.entity == entity }) { return at }
        texts.append(TextEdit(entity: entity))
        return texts.count - 1
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
        case .create, .append, .insertText, .deleteText, .textSnapshot: return
        }
        if foreignWrites[key].map({ $0 < op.id }) ?? true { foreignWrites[key] = op.id }
    }

    /// Whether another replica wrote the register after `write`.
    func isOverwrittenElsewhere(_ write: RegisterWrite) -> Bool {
        foreignWrites[write.key].map { $0 > write.stamp } ?? false
    }
}
