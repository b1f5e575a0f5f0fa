/// Why the model refused an op or a request.
public enum ModelError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The counter reached UInt64.max: the replica can write no more ops.
    case clockExhausted
    /// A number was NaN or infinite.
    case nonFiniteNumber(FieldID)
    /// A position beyond `ModelLimits.coordinate`.
    case beyondCanvas(FieldID)
    /// A counter of 0, which no op may carry.
    case zeroCounter
    /// An op's transaction belongs to another replica or starts after the op.
    case foreignTransaction
    /// A field that the entity's kind does not have.
    case fieldNotInKind(FieldID, EntityKind)
    /// A z-order key that is malformed or too long.
    case invalidZKey(String)
    /// A string longer than its field allows, in UTF-8 bytes.
    case stringTooLong(FieldID, bytes: Int, limit: Int)
    /// A stroke chunk with no samples, too many, or reaching past UInt32.
    case invalidSamples(String)
    /// Only a stroke's author may append samples to it.
    case notStrokeAuthor
    /// A gesture or command with an unusable number (NaN, infinite, or a
    /// scale that is not positive) or target.
    case invalidInput(String)
    /// The op names an entity the document has never had.
    case unknownEntity(EntityID)
    /// An op on the document itself that is not a set of one of its
    /// fields (`FieldID.document`).
    case notADocumentField(FieldID?)
    /// A text's characters that cannot be: an empty run, an id given twice,
    /// a text or an insert longer than its limit.
    case invalidText(String)

    public var description: String {
        switch self {
        case .clockExhausted: "the replica's Lamport counter is exhausted"
        case .nonFiniteNumber(let field): "\(field) must be a finite number"
        case .beyondCanvas(let field): "\(field) lies beyond ±1000000, past any canvas"
        case .zeroCounter: "op counters start at 1"
        case .foreignTransaction: "an op's transaction must be its own replica's and start no later than the op"
        case .fieldNotInKind(let field, let kind): "a \(kind) has no field \(field)"
        case .invalidZKey(let reason): "invalid z-order key: \(reason)"
        case .stringTooLong(let field, let bytes, let limit): "\(field) is \(bytes) bytes long; the limit is \(limit)"
        case .invalidSamples(let reason): "invalid stroke samples: \(reason)"
        case .notStrokeAuthor: "only a stroke's author may append samples to it"
        case .invalidInput(let reason): "invalid input: \(reason)"
        case .unknownEntity(let entity): "the document has no entity \(entity)"
        case .notADocumentField(let field?): "the document itself has no field \(field); it has fill, blob, width, height and fit"
        case .invalidText(let reason): "invalid text: \(reason)"
        case .notADocumentField(nil): "the document itself is only ever set: never created, deleted, restored or appended to"
        }
    }
}
