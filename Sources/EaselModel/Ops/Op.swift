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
    }

    /// The entity this op creates or edits.
    @inlinable
    public var entity: EntityID {
        switch action {
        case .create: EntityID(id)
        case .set(let entity, _), .delete(let entity), .restore(let entity), .append(let entity, _, _): entity
        }
    }
}
