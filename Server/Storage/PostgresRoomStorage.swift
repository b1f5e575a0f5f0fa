import EaselLocking
import EaselModel
import EaselPostgres
import EaselProtocol
import EaselSync
import Foundation

/// PostgreSQL behind the rooms' storage port, for one node of several: a
/// load takes the document's lease first (waiting up to `leaseWait` for a
/// holder that is gone), then replays it on the load thread; appends carry
/// the lease's fence to the commit thread, which commits them only while
/// the lease is still this node's; an unloaded room's lease is released
/// once its appends are committed (Docs/scaling.md).
final class PostgresRoomStorage: LoadsCreating {
    let worker: PostgresWorker
    let keeper: LeaseKeeper
    let clock: HostClock
    /// How long a load waits for a node to release a lease it is handing
    /// over (draining, or asked to).
    let leaseWait: Duration
    /// Behind a router: a document the router sent here while another node
    /// holds it belongs here now, so that node is asked to hand it over.
    let askHolders: Bool
    private let held: HeldLeases

    init(
        worker: PostgresWorker, keeper: LeaseKeeper, held: HeldLeases, clock: HostClock, leaseWait: Duration,
        askHolders: Bool
    ) {
        self.worker = worker
        self.keeper = keeper
        self.held = held
        self.clock = clock
        self.leaseWait = leaseWait
        self.askHolders = askHolders
    }

    /// Finds (or creates) the document, takes its lease, then loads it:
    /// a load begun after the lease was taken sees every append the last
    /// holder committed, since taking waits for its transactions to end.
    func load(
        _ document: DocumentName, creating: Bool,
        completion: @escaping @Sendable (Result<CommittedHistory?, StorageFailure>) -> Void
    ) {
        let (name, clock, keeper, worker, held, wait, ask) = (
            document.rawValue, clock, keeper, worker, held, leaseWait, askHolders
        )
        worker.read { connected in
            let found = Result { () throws(PostgresError) -> PostgresDocument? in
                let store = try connected.get()
                if let existing = try store.document(named: name) { return existing }
                guard creating else { return nil }
                var random = SystemRandomNumberGenerator()
                return try store.createDocument(name, epoch: Epoch(rawValue: random.next()), at: clock.now.rawValue)
            }
            switch found {
            case .failure(let error): completion(.failure(StorageFailure(error)))
            case .success(nil): completion(.success(nil))
            case .success(let row?):
                // Through the commit thread: a release queued there by this
                // document's previous room reaches the keeper first, and the
                // load below follows that room's last commits.
                worker.perform { _ in
                    keeper.take(row, waitingUpTo: wait, askingHolder: ask) { answer in
                        switch answer {
                        case .failure(let error):
                            completion(.failure(StorageFailure(error)))
                        case .success(.held(let node, _, _)):
                            completion(
                                .failure(
                                    StorageFailure(
                                        .moved(to: node.name), "node \(node.name) (\(node.address)) holds the lease")))
                        case .success(.granted(let lease)):
                            held.hold(name, row, lease)
                            worker.read { connected in
                                let loaded = Result { () throws(PostgresError) in try connected.get().load(name) }
                                completion(loaded.map { $0 }.mapError(StorageFailure.init))
                            }
                        }
                    }
                }
            }
        }
    }

    func append(
        _ ops: [LoggedOp], to document: DocumentName,
        completion: @escaping @Sendable (Result<Void, StorageFailure>) -> Void
    ) {
        let name = document.rawValue
        guard let (row, lease) = held.lease(of: name) else {
            completion(.failure(StorageFailure(.moved(to: nil), "this node holds no lease of \(name)")))
            return
        }
        let (held, keeper) = (held, keeper)
        worker.append(FencedAppend(document: row, ops: ops, lease: lease)) { outcome in
            switch outcome {
            case .committed:
                completion(.success(()))
            case .fenced:
                held.drop(name, if: lease)
                keeper.forget(row.id)
                completion(.failure(StorageFailure(.moved(to: nil), "the lease of \(name) was taken by another node")))
            case .conflict(let detail):
                completion(.failure(StorageFailure(.conflict, detail)))
            case .failed(let error):
                completion(.failure(StorageFailure(error)))
            }
        }
    }

    /// Releases the lease once the room's appends are committed (they are
    /// queued on the commit thread before this), and snapshots it.
    func unloaded(_ document: DocumentName, head: UInt64) {
        let name = document.rawValue
        guard let (row, _) = held.remove(name) else { return }
        let keeper = keeper
        worker.perform { _ in keeper.release(row.id) }
        worker.snapshot(name)
    }

    var metrics: StorageMetrics { StorageMetrics(worker.metrics) }
}

/// The documents this node holds the lease of, by name: written by loads
/// and unloads, read by appends, and thinned by the lease keeper when it
/// finds leases another node took (their rooms' next appends fail as moved).
final class HeldLeases: Sendable {
    private let leases = Locked<
        [String: (document: PostgresDocument, lease: Lease, since: ContinuousClock.Instant)]
    >([:])
    /// Told the names of documents whose leases were lost, to close their rooms.
    private let onLost = Locked<(@Sendable ([DocumentName]) -> Void)?>(nil)

    init() {}

    func whenLost(_ handler: @escaping @Sendable ([DocumentName]) -> Void) {
        onLost.withLock { $0 = handler }
    }

    func hold(_ name: String, _ document: PostgresDocument, _ lease: Lease) {
        leases.withLock { $0[name] = (document, lease, .now) }
    }

    func lease(of name: String) -> (document: PostgresDocument, lease: Lease)? {
        leases.withLock { $0[name].map { ($0.document, $0.lease) } }
    }

    func remove(_ name: String) -> (document: PostgresDocument, lease: Lease)? {
        leases.withLock { $0.removeValue(forKey: name).map { ($0.document, $0.lease) } }
    }

    /// The document held under this id: its name, and since when.
    func document(id: Int64) -> (name: String, since: ContinuousClock.Instant)? {
        leases.withLock { leases in
            leases.first { $0.value.document.id == id }.map { ($0.key, $0.value.since) }
        }
    }

    /// Every document held: name, id, and since when.
    var documents: [(name: String, id: Int64, since: ContinuousClock.Instant)] {
        leases.withLock { leases in leases.map { ($0.key, $0.value.document.id, $0.value.since) } }
    }

    /// Forgets a lease that was found fenced, unless it was taken again since.
    func drop(_ name: String, if lease: Lease) {
        leases.withLock { if $0[name]?.lease == lease { $0[name] = nil } }
    }

    func lost(_ documents: [Int64]) {
        let gone = Set(documents)
        let names = leases.withLock { leases in
            let lost = leases.filter { gone.contains($0.value.document.id) }.keys
            for name in lost { leases[name] = nil }
            return lost.compactMap { try? DocumentName($0) }
        }
        if !names.isEmpty { onLost.value?(names) }
    }
}

extension StorageFailure {
    /// What PostgreSQL's error means at the port; its whole text stays in
    /// the detail, for the log.
    init(_ error: PostgresError) {
        let kind: Kind =
            switch error.reason {
            case .corrupt: .corrupt
            case .connection, .server, .unexpected: .unavailable
            }
        self.init(kind, error.description)
    }
}
