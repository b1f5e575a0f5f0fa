/// One editing client: a document, this replica's clock, the editor state
/// kept outside the document, and the undo history.
///
/// Gestures and commands are reduced here into transactions of ops. Each
/// call applies its ops to the local document and RETURNS them; sending
/// them to others is the caller's job (the sync engine's). Remote ops come
/// in through `receive(_:)`.
public struct Editor: Sendable {
    public internal(set) var document: Document
    public internal(set) var state = EditorState()
    public internal(set) var clock: LamportClock
    var history = History()

    /// How far a duplicate is offset from its original, in document units.
    public static let duplicateOffset = Vector(dx: 16, dy: 16)

    public init(replica: ReplicaID, document: Document = Document()) {
        self.document = document
        clock = LamportClock(replica: replica, counter: document.highestCounter)
    }

    /// Resumes a replica whose counter was saved with its unsent edits.
    public init(clock: LamportClock, document: Document) {
        self.document = document
        self.clock = clock
        self.clock.observe(document.highestCounter)
    }

    public var replica: ReplicaID { clock.replica }

    /// Applies ops from other replicas (or replays of this one's), keeping
    /// the selection and the in-flight gesture to visible entities.
    public mutating func receive(_ ops: some Sequence<Op>) {
        for op in ops { receiveOne(op) }
        receivingEnded()
    }

    /// One received op, for a caller that holds ops inside other values (a
    /// message's positioned ops) and should not copy each out; call
    /// `receivingEnded()` after the last.
    public mutating func receiveOne(_ op: Op) {
        clock.observe(op.id.counter)
        document.apply(op)
        if op.id.replica != replica { history.noteForeign(op) }
    }

    /// Drops from the selection and the gesture in flight what the ops
    /// received since the last call deleted.
    public mutating func receivingEnded() {
        pruneEditorState()
    }

    // MARK: Undo state

    public var canUndo: Bool { !history.undoStack.isEmpty }
    public var canRedo: Bool { !history.redoStack.isEmpty }
    /// Whether this replica edited the document since `markSaved()`.
    public var hasChanges: Bool { history.undoStack.last?.transaction != history.savedTop }

    public mutating func markSaved() {
        history.savedTop = history.undoStack.last?.transaction
    }

    // MARK: Committing

    /// Applies a finished transaction locally and returns its ops.
    mutating func commit(_ transaction: TransactionBuilder, undoable: Bool = true) -> [Op] {
        let ops = clock.commit(transaction)
        if undoable, let step = History.step(for: ops, before: document) {
            if let last = history.undoStack.last, last.isContinuedByTyping(step) {
                history.undoStack[history.undoStack.count - 1] = last.continued(by: step)
            } else {
                history.undoStack.append(step)
            }
            history.redoStack.removeAll()
        }
        for op in ops { document.apply(op) }
        pruneEditorState()
        return ops
    }

    /// Drops entities that are no longer visible from the selection and
    /// from the gesture in flight.
    mutating func pruneEditorState() {
        state.selection = state.selection.filter(document.isVisible)
        if let caret = state.textCaret, !document.isVisible(caret.text) { state.textCaret = nil }
        if let gesture = state.gesture {
            let gone = gesture.entities.filter { !document.isVisible($0) }
            if !gone.isEmpty { state.gesture = gesture.removing(gone) }
        }
    }

    /// Jitter for a z-order key, from the OpID that will carry it: distinct
    /// per replica and op, and reproducible.
    static func jitter(for id: OpID) -> UInt64 {
        id.counter &* 0x9E37_79B9_7F4A_7C15 ^ id.replica.rawValue
    }

    /// Topmost visible entity under a screen point.
    public func entity(atScreen point: Point) -> EntityID? {
        document.topmostHit(state.viewport.documentPoint(fromScreen: point))
    }
}
