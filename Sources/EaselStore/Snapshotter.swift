import EaselLocking
import Foundation

/// Builds and writes snapshots on a thread and SQLite connection of their
/// own. A snapshot replays its document from the log, so on the storage
/// thread it held every document's group commit back: 50-250 ms for a
/// 20,000-entity document in `easel chaos hostile`, and it grows with the
/// document. Here the replay reads in a read transaction while commits go
/// on (WAL), and only the short write of the finished snapshot takes
/// SQLite's write lock.
///
/// Snapshots only spare replay: one dropped at shutdown, or failed, loses
/// nothing (the next is taken after another `snapshotEvery` ops, or when
/// the room unloads).
final class Snapshotter: Sendable {
    private let thread: WorkerThread<String>

    /// Opens the second connection; `path`'s schema must be current (the
    /// storage worker's connection migrated it).
    init(path: String, durability: Durability, metrics: MetricsBox, started: @escaping @Sendable () -> Void)
        throws(StoreError)
    {
        let store = Locked(try OpStore(path: path, durability: durability))
        thread = WorkerThread(name: "easel-snapshots", started: started, cancel: { _ in }) { documents in
            store.withLock { store in
                var seen: Set<String> = []
                for document in documents where seen.insert(document).inserted {
                    do throws(StoreError) {
                        try Self.snapshot(document, in: store)
                    } catch {
                        metrics.recordFailedSnapshot()
                    }
                }
            }
        }
    }

    /// Snapshots `document` soon, unless its latest snapshot is at its head
    /// by then.
    func request(_ document: String) {
        thread.add(document)
    }

    /// Finishes the snapshots asked for, and ends the thread.
    func close() {
        thread.close()
    }

    func closeWithoutWaiting() {
        thread.closeWithoutWaiting()
    }

    private static func snapshot(_ document: String, in store: OpStore) throws(StoreError) {
        guard try store.latestSnapshotPosition(of: document) ?? 0 < store.head(of: document) else { return }
        try store.snapshot(document, at: Int64(Date().timeIntervalSince1970 * 1000))
    }
}
