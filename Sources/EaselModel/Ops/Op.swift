/// One edit of a document, and the unit of replication.
///
/// Applying ops is commutative, associative and idempotent: a document's
/// state depends only on the SET of ops it has applied.
///
/// A set op writes one field. Editing several fields at once is several ops
/// in one transaction: that keeps an op free of heap storage (strings up to
/// 15 bytes are stored inline) and gives each field its own stamp.
public struct Op: Hashable, Sendable {
    public var id: OpID
    public var transaction: TransactionID
    public var action: Action

    public init(id: OpID, transaction: TransactionID, action: Action) {
        self.id = id
        self.transaction = transaction
        self.action = action
    }

    public enum Action: Hashable, Sendable {
        /// Creates the entity named by this op's ID, with its kind and the
        /// fields that differ from the defaults.
        case create(EntityKind, [Field])
        case set(EntityID, Field)
        /// Writes the entity's `alive` register: delete and restore are
        /// ordinary last-writer-wins writes, so undoing one is the other.
        case delete(EntityID)
        case restore(EntityID)
        /// Adds samples to a stroke at `start`; only the stroke's author may.
        case append(EntityID, start: UInt32, samples: [StrokeSample])
        /// Types characters into a text (Docs/text.md). The op's ID is the
        /// first character's, and each next one's is a counter on, so the
        /// op takes as many counters as it types characters.
        case insertText(EntityID, TextInsertion)
        /// Deletes a text's characters, named by ID.
        case deleteText(EntityID, [CharacterRun])
        /// A text's characters as a snapshot carries them, or a piece of
        /// them (`TextSnapshot`): only a snapshot holds this op, stamped
        /// with the latest op that changed the text.
        indirect case textSnapshot(EntityID, TextSnapshot)
    }

    /// The entity this op creates or edits.
    @inlinable
    public var entity: EntityID {
        switch action {
        case .create: EntityID(id)
        case .set(let entity, _), .delete(let entity), .restore(let entity), .append(let entity, _, _),
            .insertText(let entity, _), .deleteText(let entity, _), .textSnapshot(let entity, _):
            entity
        }
    }

    /// The last counter the op takes: its own, and one more for each
    /// character after the first that it types, or that a string it writes
    /// as a text's may become (Docs/text.md). A replica's clock passes it.
    @inline(__always)
    public var lastCounter: UInt64 {
        switch action {
        case .set(_, let field):
            guard case .text = field else { return id.counter }
        case .create(let kind, _):
            guard kind == .text else { return id.counter }
        case .insertText:
            break
        case .textSnapshot(_, let snapshot):
            return max(id.counter, snapshot.highestCounter)
        default:
            return id.counter
        }
        return textLastCounter
    }

    @inline(never)
    private var textLastCounter: UInt64 {
        let extra: Int =
            switch action {
            case .insertText(_, let insertion): insertion.scalars.count - 1
            case .set(_, .text(let string)): string.unicodeScalars.count - 1
            case .create(_, let fields):
                fields.lazy.compactMap { field -> Int? in
                    if case .text(let string) = field { string.unicodeScalars.count - 1 } else { nil }
                }.first ?? 0
            default: 0
            }
        return extra > 0 ? id.counter &+ UInt64(extra) : id.counter
    }

    /// Whether the op types or deletes characters of a text.
    public var isCharacterOp: Bool {
        switch action {
        case .insertText, .deleteText, .textSnapshot: true
        default: false
        }
    }

    /// The op as an edit of a text's characters, if it is one.
    public var textOp: TextOp? {
        switch action {
        case .insertText(_, let insertion):
            .insert(
                TextInsert(
                    id: id, originLeft: insertion.originLeft, originRight: insertion.originRight,
                    scalars: Array(insertion.scalars)))
        case .deleteText(_, let runs): .delete(TextDelete(runs: runs))
        default: nil
        }
    }
}
