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
    /// The earliest position whose state the history can build.
    var earliest: UInt64 { base?.position ?? 0 }

    static func load(from store: OpStore, document name: String) throws -> DocumentHistory {
        guard try store.documentInfo(name) != nil else { throw CommandError("no document \(name) in the database") }
        let ops = try store.ops(of: name, after: 0)
        let compacted = try ops.first.map { $0.position > 1 } ?? (store.head(of: name) > 0)
        guard compacted else { return DocumentHistory(name: name, base: nil, ops: ops) }
        // What is left starts after the latest snapshot: the store's own
        // load reads exactly that, and checks the tail for gaps.
        let loaded = try store.load(name)
        return DocumentHistory(name: name, base: loaded.snapshot, ops: loaded.tail)
    }

    /// The document after the op at `position` (the head when nil).
    func document(at position: UInt64? = nil) throws -> Document {
        let position = position ?? head
        guard position <= head else {
            throw CommandError("position \(position) is past the end of \(name): its head is \(head)")
        }
        guard position >= earliest else {
            throw CommandError(
                "positions before \(earliest) of \(name) were compacted into a snapshot; the earliest state is at \(earliest)"
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
