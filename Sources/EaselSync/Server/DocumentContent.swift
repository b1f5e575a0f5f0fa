import EaselModel
import EaselProtocol

/// How much a document holds, as the per-document limits count it
/// (`ServerLimits.entitiesPerDocument`, `.contentBytesPerDocument`).
///
/// Bytes are counted from the ops, not measured in memory, so every
/// server and test counts the same: a create 24, plus 4 a number or other
/// fixed field, a string's UTF-8, 16 an erased entity, 32 a blob; 12 a
/// stroke sample appended; 4 a character typed (a deleted one stays, as
/// the text keeps it). Writing a field adds nothing: every field has a
/// bounded size (Protocol/README.md section 8), so what one entity holds
/// is bounded and the entity limit bounds the rest. Only entities, samples
/// and characters grow a document without end. On load the count is
/// rebuilt from the snapshot's creates, which carry each entity's fields
/// as they are now, and its texts' characters.
struct DocumentContent: Hashable, Sendable {
    var entities = 0
    var bytes = 0

    /// What a loaded history holds: its snapshot's state, then its tail
    /// (a snapshot creates every entity the document has, deleted or not).
    init(of history: CommittedHistory) {
        for op in history.snapshot?.state ?? [] { add(op) }
        for logged in history.tail { add(logged.op) }
    }

    init() {}

    mutating func add(_ op: Op) {
        if case .create = op.action { entities += 1 }
        bytes += Self.bytes(of: op)
    }

    /// What `op` adds to its document.
    static func bytes(of op: Op) -> Int {
        switch op.action {
        case .create(_, let fields):
            var total = 24
            for field in fields { total += bytes(of: field) }
            return total
        case .append(_, _, let samples):
            return samples.count * 12
        case .insertText(_, let insertion):
            return insertion.scalars.count * 4
        case .textSnapshot(_, let snapshot):
            return snapshot.characterCount * 4
        case .set, .delete, .restore, .deleteText:
            return 0
        }
    }

    private static func bytes(of field: Field) -> Int {
        switch field {
        case .character(let string), .text(let string), .font(let string): string.utf8.count
        case .zKey(let key): key.string.utf8.count
        case .erases(let erased): erased.count * 16
        case .blob: 32
        default: 4
        }
    }
}
