import EaselModel
import EaselProtocol

/// The server's storage seam: everything rooms need of storage, and all
/// that a host may ask of it. SQLite is one adapter behind it (the server
/// adapts EaselStore, so EaselStore never imports EaselSync);
/// `InMemoryRoomStorage` serves tests, the in-process server and the
/// network simulation; another database needs only another adapter.
///
/// Completions may run later and on another thread; the host hands them
/// back to the server on the server's own thread (`perform(_:completed:)`
/// does the carrying, once for every host).
public protocol RoomStorage: AnyObject, Sendable {
    /// The document's committed history; a document never written loads
    /// as an empty history of a new epoch.
    func load(
        _ document: DocumentName, completion: @escaping @Sendable (Result<CommittedHistory, StorageFailure>) -> Void)

    /// The document's committed history if it was ever stored, nil (and
    /// nothing created) if not: a room loaded ahead of its first hello.
    /// Storage without it answers nil, and rooms load on hellos alone.
    func loadIfStored(
        _ document: DocumentName, completion: @escaping @Sendable (Result<CommittedHistory?, StorageFailure>) -> Void)

    /// Makes positioned ops durable. The completion reports success only
    /// once they would survive a crash; the first op continues the log.
    func append(
        _ ops: [LoggedOp], to document: DocumentName,
        completion: @escaping @Sendable (Result<Void, StorageFailure>) -> Void)

    /// The document's room unloaded with its log at `head`: a chance to
    /// snapshot it so the next load replays little. Nobody waits for it.
    func unloaded(_ document: DocumentName, head: UInt64)

    /// Counters for the operator (`/metrics`).
    var metrics: StorageMetrics { get }
}

/// Why storage failed a request. A client is told only the kind's plain
/// reason; the detail (a statement, a file, the store's own code) is for
/// the operator's log.
public struct StorageFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// The store could not do it now: an I/O error, a full disk, a lock.
        case unavailable
        /// The request contradicts what is stored: a position that does not
        /// continue the log, an op already in it. A bug, or a second writer.
        case conflict
        /// What is stored does not read.
        case corrupt
        /// The store has shut down.
        case closed
        /// Another node holds the document's lease (several nodes on one
        /// database): this one may not serve it. The holder's name, when one
        /// holds it, is where the router can send its clients.
        case moved(to: String?)
    }

    public var kind: Kind
    /// For the log only.
    public var detail: String
    /// A number the host gave this failure when it logged it: the client
    /// is told it too, so the operator can find the detail.
    public var incident: String?

    public init(_ kind: Kind, _ detail: String, incident: String? = nil) {
        self.kind = kind
        self.detail = detail
        self.incident = incident
    }

    /// What a client may be told.
    public var reason: String {
        switch kind {
        case .unavailable: "the store is unavailable"
        case .conflict: "the store refused a write that contradicts the log"
        case .corrupt: "the stored document does not read"
        case .closed: "the store has shut down"
        case .moved(let node): "the document is served by \(node.map { "node \($0)" } ?? "another node")"
        }
    }

    public var description: String { "\(reason): \(detail)" }
}

/// How storage is doing, counted since the server started.
public struct StorageMetrics: Hashable, Sendable {
    public var transactions = 0
    public var opsCommitted = 0
    public var appendsFailed = 0
    public var snapshotsFailed = 0
    /// Ops in the most recent commit: how well group commit is grouping.
    public var lastOpsPerTransaction = 0
    public var maxOpsPerTransaction = 0

    public init() {}

    public var opsPerTransaction: Double {
        transactions == 0 ? 0 : Double(opsCommitted) / Double(transactions)
    }
}

/// A storage answer on its way back to the server's thread.
public enum StorageCompletion: Sendable {
    case loaded(DocumentName, Result<CommittedHistory, StorageFailure>)
    /// A warm load's answer: nil when the document was never stored.
    case warmed(DocumentName, Result<CommittedHistory?, StorageFailure>)
    /// An append's answer, with how many ops it carried.
    case stored(StorageTicket, Result<Void, StorageFailure>, ops: Int)
    /// Unasked: the document may no longer be served here (another node
    /// took its lease).
    case evicted(DocumentName, StorageFailure)
    /// Unasked: the router now sends this document to another node; its
    /// room hands it over (`SyncServer.handOver`).
    case handOver(DocumentName, to: String)

    /// Hands the answer to the server; call it on the server's thread.
    public func deliver(to server: SyncServer, at now: Timestamp) {
        switch self {
        case .loaded(let document, let result): server.loaded(document, result, at: now)
        case .warmed(let document, let result): server.warmed(document, result, at: now)
        case .stored(let ticket, let result, _): server.stored(ticket, result, at: now)
        case .evicted(let document, let failure): server.evict(document, because: failure, at: now)
        case .handOver(let document, let node): server.handOver(document, to: node, at: now)
        }
    }
}

extension RoomStorage {
    public func loadIfStored(
        _ document: DocumentName, completion: @escaping @Sendable (Result<CommittedHistory?, StorageFailure>) -> Void
    ) {
        completion(.success(nil))
    }

    /// Carries out one of the server's storage outputs (`load`, `warm`,
    /// `append`, `unloaded`): `completed` hears the answer, on whatever thread
    /// storage calls back on, for the host to `deliver` on the server's
    /// thread. Answers false, doing nothing, for any other output.
    public func perform(_ output: ServerOutput, completed: @escaping @Sendable (StorageCompletion) -> Void) -> Bool {
        switch output {
        case .load(let document):
            load(document) { completed(.loaded(document, $0)) }
        case .warm(let document):
            loadIfStored(document) { completed(.warmed(document, $0)) }
        case .append(let ops, let document, let ticket):
            append(ops, to: document) { completed(.stored(ticket, $0, ops: ops.count)) }
        case .unloaded(let document, let head):
            unloaded(document, head: head)
        case .send, .close:
            return false
        }
        return true
    }
}
