import EaselModel
import EaselProtocol

/// A document's history as replay reads it: the ops in order, from
/// position 1, or from the snapshot that replaced the earlier ones when the
/// log was compacted.
public struct OpHistory: Sendable {
    public var name: String
    /// The state the ops start from, when the log was compacted.
    public var base: StateSnapshot?
    public var ops: [LoggedOp]

    public init(name: String, base: StateSnapshot? = nil, ops: [LoggedOp]) {
        self.name = name
        self.base = base
        self.ops = ops
    }

    /// A history read from a JSON Lines log (Docs/log-format.md).
    public init(log: OpLogJSON.Log) {
        self.init(name: log.header.document, base: log.snapshot, ops: log.ops)
    }

    /// Reads a JSON Lines log; errors name the line at fault.
    public static func read(jsonLines lines: some Sequence<String>) throws(ReplayError) -> OpHistory {
        do throws(OpLogJSON.ReadError) {
            return OpHistory(log: try OpLogJSON.read(lines))
        } catch {
            throw ReplayError(error.description)
        }
    }

    public var head: UInt64 { ops.last?.position ?? base?.position ?? 0 }
    /// The earliest position whose state the history can build.
    public var earliest: UInt64 { base?.position ?? 0 }

    /// The state the first op applies to: empty, or the compacted base.
    public var baseDocument: Document {
        var document = Document()
        document.apply(contentsOf: base?.state ?? [])
        return document
    }

    /// The op at `position`, which must lie after `earliest`.
    public func op(at position: UInt64) -> LoggedOp? {
        guard position > earliest, position <= head else { return nil }
        return ops[Int(position - earliest - 1)]
    }

    /// Refuses a position the history cannot build, naming those it can.
    public func checkReachable(_ position: UInt64) throws(ReplayError) {
        guard position <= head else {
            throw ReplayError("position \(position) is past the end of \(name): its head is \(head)")
        }
        guard position >= earliest else {
            throw ReplayError(
                "positions before \(earliest) of \(name) were compacted into a snapshot; the earliest state is at \(earliest)"
            )
        }
    }

    /// The document after the op at `position` (the head when nil).
    public func document(at position: UInt64? = nil) throws(ReplayError) -> Document {
        let position = position ?? head
        try checkReachable(position)
        var document = baseDocument
        for logged in ops {
            guard logged.position <= position else { break }
            document.apply(logged.op)
        }
        return document
    }
}
