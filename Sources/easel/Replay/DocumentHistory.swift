import EaselModel
import EaselProtocol
import EaselStore

/// A document's history as render and replay read it: the ops in order,
/// from position 1, or from the snapshot that replaced the earlier ones
/// when the log was compacted.
struct DocumentHistory {
    var name: String
    /// The state the ops start from, when the log was compacted.
    var base: StateSnapshot?
    var ops: [LoggedOp]

    var head: UInt64 { ops.last?.position ?? base?.position ?? 0 }
    var first: UInt64 { base?.position ?? 0 }

    static func load(from store: OpStore, document name: String) throws -> DocumentHistory {
        guard try store.documentInfo(name) != nil else { throw CommandError("no document \(name) in the database") }
        let ops = try store.ops(of: name, after: 0)
        var base: StateSnapshot?
        let compacted = try ops.first.map { $0.position > 1 } ?? (store.head(of: name) > 0)
        if compacted {
            base = try store.latestSnapshot(of: name)
            guard let base, base.position + 1 == ops.first?.position ?? base.position + 1 else {
                throw CommandError("the log of \(name) has a gap before position \(ops.first?.position ?? 0)")
            }
        }
        return DocumentHistory(name: name, base: base, ops: ops)
    }

    /// The document after the op at `position` (the head when nil).
    func document(at position: UInt64? = nil) throws -> Document {
        let position = position ?? head
        guard position <= head else {
            throw CommandError("position \(position) is past the end of \(name): its head is \(head)")
        }
        guard position >= first else {
            throw CommandError(
                "positions before \(first) of \(name) were compacted into a snapshot; the earliest state is at \(first)"
            )
        }
        var document = Document()
        for op in base?.state ?? [] { document.apply(op) }
        for logged in ops {
            guard logged.position <= position else { break }
            document.apply(logged.op)
        }
        return document
    }
}
