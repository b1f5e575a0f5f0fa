import EaselModel
import EaselProtocol
import EaselStore
import EaselSync
import Foundation

/// EaselStore (SQLite) behind the rooms' storage port: appends run on the
/// storage worker's thread and answer there; a load marks the document as
/// served there, then replays it on the load thread and answers there.
///
/// A document loads as an empty history of a new epoch the first time
/// anyone opens it, and is marked as served by this process, so `easel db`
/// refuses to restore or delete it underneath the running server.
final class StoreRoomStorage: LoadsCreating {
    let worker: StorageWorker
    let clock: HostClock

    init(worker: StorageWorker, clock: HostClock) {
        self.worker = worker
        self.clock = clock
    }

    /// Marks the document as served (creating it first if asked) on the
    /// storage thread, then replays it on the load thread; nil when it is
    /// not stored and was not to be created.
    func load(
        _ document: DocumentName, creating: Bool,
        completion: @escaping @Sendable (Result<CommittedHistory?, StorageFailure>) -> Void
    ) {
        let (name, clock, worker) = (document.rawValue, clock, worker)
        worker.perform(
            { store throws(StoreError) -> Bool in
                let now = clock.now.rawValue
                if try store.documentInfo(name) == nil {
                    guard creating else { return false }
                    var random = SystemRandomNumberGenerator()
                    _ = try store.createDocument(name, epoch: Epoch(rawValue: random.next()), at: now)
                }
                try store.markServing(name, at: now)
                return true
            },
            completion: { marked in
                switch marked {
                case .success(true):
                    worker.read({ store throws(StoreError) -> CommittedHistory? in try store.load(name) }) { loaded in
                        completion(loaded.mapError(StorageFailure.init))
                    }
                case .success(false): completion(.success(nil))
                case .failure(let error): completion(.failure(StorageFailure(error)))
                }
            })
    }

    func append(
        _ ops: [LoggedOp], to document: DocumentName,
        completion: @escaping @Sendable (Result<Void, StorageFailure>) -> Void
    ) {
        worker.append(ops, to: document.rawValue) { result in completion(result.mapError(StorageFailure.init)) }
    }

    /// Stops marking the document as served, and snapshots it so the next
    /// load replays little.
    func unloaded(_ document: DocumentName, head: UInt64) {
        let name = document.rawValue
        worker.perform({ store throws(StoreError) in try store.unmarkServing(name) }, completion: { _ in })
        worker.snapshot(name)
    }

    var metrics: StorageMetrics { StorageMetrics(worker.metrics) }
}

extension StorageFailure {
    /// What the store's error means at the port; its whole text (SQL and
    /// SQLite code included) stays in the detail, for the log.
    init(_ error: StoreError) {
        let kind: Kind =
            switch error.reason {
            case .duplicateOp, .positionGap, .documentExists, .documentBusy: .conflict
            case .corruptPayload, .newerSchema: .corrupt
            case .closed: .closed
            case .sqlite, .unknownDocument, .outOfRange, .missingFile, .fileExists: .unavailable
            }
        self.init(kind, error.description)
    }
}
