import EaselModel
import EaselProtocol

/// A committed op as the log keeps it.
public typealias StoredOp = LoggedOp

/// A document's state at a position, with the per-replica high-water
/// counters as of then.
public typealias Snapshot = StateSnapshot

/// What a room needs to serve a document: the latest snapshot, the ops
/// after it, and the per-replica high-water counters over both.
public typealias LoadedDocument = CommittedHistory

/// A document and its epoch.
public struct DocumentInfo: Hashable, Sendable {
    public var name: String
    public var epoch: Epoch
    /// Milliseconds since 1970.
    public var createdAt: Int64

    public init(name: String, epoch: Epoch, createdAt: Int64) {
        self.name = name
        self.epoch = epoch
        self.createdAt = createdAt
    }
}

/// A line of `easel db list`.
public struct DocumentSummary: Hashable, Sendable {
    public var info: DocumentInfo
    /// The last committed position.
    public var head: UInt64
    /// Ops still in the log (fewer than `head` after a compaction).
    public var opsInLog: Int
    public var latestSnapshot: UInt64?

    public init(info: DocumentInfo, head: UInt64, opsInLog: Int, latestSnapshot: UInt64?) {
        self.info = info
        self.head = head
        self.opsInLog = opsInLog
        self.latestSnapshot = latestSnapshot
    }
}

/// How hard a commit pushes its bytes to disk (Docs/storage.md).
public enum Durability: String, CaseIterable, Sendable {
    /// `synchronous=FULL`: a commit survives power loss and OS crashes.
    case full
    /// `synchronous=NORMAL`: a commit survives the process being killed,
    /// not an OS crash or power loss right after it.
    case normal
}
