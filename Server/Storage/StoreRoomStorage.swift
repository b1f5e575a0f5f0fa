import EaselModel
import EaselProtocol
import EaselStore
import EaselSync
import Foundation

/// EaselStore (SQLite) behind the rooms' storage port: loads and appends
/// run on the storage worker's thread, and answer there.
///
/// A document loads as an empty history of a new epoch the first time
/// anyone opens it, and is marked as served by this process, so `easel db`
/// refuses to restore or delete it underneath the running server.
final class StoreRoomStorage: RoomStorage {
    let worker: StorageWorker
    let clock: HostClock

    init(worker: StorageWorker, clock: HostClock) {
        self.worker = worker
        self.clock = clock
    }

    func load(
        _ document: DocumentName, completion: @escaping @Sendable (Result<CommittedHistory, StorageFailure>) -> Void
    ) {
        let (name, clock) = (document.rawValue, clock)
        worker.perform(
            { store throws(StoreError) -> CommittedHistory in
                let now = clock.now.rawValue
                if try store.documentInfo(name) == nil {
                    var random = SystemRandomNumberGenerator()
                    _ = try store.createDocument(name, epoch: Epoch(rawValue: random.next()), at: now)
                }
                try store.markServing(name, at: now)
                return try store.load(name)
            },
            completion: { result in completion(result.mapError(StorageFailure.init)) })
    }

    func loadIfStored(
        _ document: DocumentName, completion: @escaping @Sendable (Result<CommittedHistory?, StorageFailure>) -> Void
    ) {
        let (name, clock) = (document.rawValue, clock)
        worker.perform(
            { store throws(StoreError) -> CommittedHistory? in
                guard try store.documentInfo(name) != nil else { return nil }
                try store.markServing(name, at: clock.now.rawValue)
                return try store.load(name)
            },
            completion: { result in completion(result.mapError(StorageFailure.init)) })
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

    var metrics: StorageMetrics {
        let commits = worker.metrics
        var metrics = StorageMetrics()
        metrics.transactions = commits.transactions
        metrics.opsCommitted = commits.opsCommitted
        metrics.appendsFailed = commits.appendsFailed
        metrics.snapshotsFailed = commits.snapshotsFailed
        metrics.lastOpsPerTransaction = commits.lastOpsPerTransaction
        metrics.maxOpsPerTransaction = commits.maxOpsPerTransaction
        return metrics
    }
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
