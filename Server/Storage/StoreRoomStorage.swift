import EaselModel
import EaselProtocol
import EaselStore
import EaselSync
import Foundation

/// EaselStore behind the rooms' storage port: loads and appends run on the
/// storage worker's thread; their completions are handed back by the host.
///
/// A document loads as an empty history of a new epoch the first time
/// anyone opens it, and is marked as served by this process, so `easel db`
/// refuses to restore or delete it underneath the running server.
final class StoreRoomStorage: RoomStorage {
    let worker: StorageWorker

    init(worker: StorageWorker) {
        self.worker = worker
    }

    func load(
        _ document: String, completion: @escaping @Sendable (Result<CommittedHistory, RoomStorageError>) -> Void
    ) {
        worker.perform(
            { store throws(StoreError) -> CommittedHistory in
                let now = Timestamp.now.rawValue
                if try store.documentInfo(document) == nil {
                    var random = SystemRandomNumberGenerator()
                    _ = try store.createDocument(document, epoch: Epoch(rawValue: random.next()), at: now)
                }
                try store.markServing(document, at: now)
                return try store.load(document)
            },
            completion: { result in completion(result.mapError { RoomStorageError($0.description) }) })
    }

    func append(
        _ ops: [LoggedOp], to document: String, completion: @escaping @Sendable (Result<Void, RoomStorageError>) -> Void
    ) {
        worker.append(ops, to: document) { result in
            completion(result.mapError { RoomStorageError($0.description) })
        }
    }

    /// A room unloaded: snapshot it so the next load replays little, and
    /// stop marking it as served.
    func unloaded(_ document: String) {
        worker.perform(
            { store throws(StoreError) in
                if try store.latestSnapshotPosition(of: document) ?? 0 < store.head(of: document) {
                    try store.snapshot(document, at: Timestamp.now.rawValue)
                }
                try store.unmarkServing(document)
            }, completion: { _ in })
    }
}
