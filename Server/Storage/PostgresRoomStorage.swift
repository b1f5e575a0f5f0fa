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
                    let revocations = keeper.standing().revocations
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
                            // Held first: a guard looking meanwhile lets it go.
                            held.hold(name, row, lease, revocations: revocations)
                            // Granted, maybe, as still this node's to a node
                            // whose row expired: another may take it any moment.
                            guard keeper.standing().vouches(forTakesAskedAt: revocations) else {
                                _ = held.remove(name)
                                keeper.release(row.id)
                                completion(
                                    .failure(
                                        StorageFailure(
                                            .moved(to: nil),
                                            "this node's leases were not renewed in time to serve \(name)")))
                                return
                            }
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

extension StorageFailure {
    /// What PostgreSQL's error means at the port; its whole text stays in
    /// the detail, for the log.
    init(_ error: PostgresError) {
        let kind: Kind =
            switch error.reason {
            case .corrupt: .corrupt
            case .connection, .server, .unexpected, .refused: .unavailable
            }
        self.init(kind, error.description)
    }
}
