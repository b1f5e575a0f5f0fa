/// What applying one op did to a document.
public enum ApplyResult: Hashable, Sendable {
    /// The op changed the state.
    case applied
    /// The op changed the state of an entity whose create has not arrived
    /// yet; it is kept and takes effect when the create comes.
    case appliedBeforeCreate
    /// A later write already held what the op writes: nothing changed.
    case superseded
    /// The document already held exactly this op: nothing changed.
    case duplicate
    /// A stroke chunk was kept, waiting for the samples before it.
    case waitingForGap
    /// The op is not allowed to change anything (an append by someone other
    /// than the stroke's author, an empty chunk).
    case refused(ModelError)

    init(_ outcome: MergeOutcome, created: Bool) {
        switch outcome {
        case .applied: self = created ? .applied : .appliedBeforeCreate
        case .superseded: self = .superseded
        case .duplicate: self = .duplicate
        }
    }

    /// True when the document changed.
    public var changedState: Bool {
        switch self {
        case .applied, .appliedBeforeCreate, .waitingForGap: true
        case .superseded, .duplicate, .refused: false
        }
    }
}
