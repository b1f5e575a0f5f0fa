import EaselLocking
import EaselProtocol
import Foundation

/// Builds snapshots on a thread and SQLite connection of their own, and
/// hands each finished one to the storage thread to write. A
/// snapshot replays its document from the log, so on the storage thread it
/// held every document's group commit back: 50-250 ms for a 20,000-entity
/// document in `easel chaos hostile`, and it grows with the document. Here
/// the replay reads in a read transaction while commits go on (WAL); the
/// storage thread only inserts the encoded state. (Written from this
/// connection instead, the snapshot took SQLite's write lock, and a commit
/// that found it taken slept in SQLite's busy handler.)
///
/// Once the storage thread has shut down, a snapshot still being built is
/// written here: nothing else writes then. Snapshots only spare replay:
/// one that failed loses nothing (the next is taken after another
/// `snapshotEvery` ops, or when the room unloads).
final class Snapshotter: Sendable {
    /// Queues a finished snapshot for the storage thread; false once that
    /// has shut down.
    typealias Write = @Sendable (_ snapshot: EncodedSnapshot, _ document: String) -> Bool

    private let thread: WorkerThread<String>

    /// Opens the second connection, after the storage worker's (which
    /// migrates the schema).
    init(
        path: String, durability: Durability, metrics: MetricsBox, started: @escaping @Sendable () -> Void,
        write: @escaping Write
    ) throws(StoreError) {
        let store = Locked(try OpStore(path: path, durability: durability))
        thread = WorkerThread(name: "easel-snapshots", started: started, cancel: { _ in }) { documents in
            store.withLock { store in
                var seen: Set<String> = []
                for document in documents where seen.insert(document).inserted {
                    do throws(StoreError) {
                        guard let snapshot = try Self.snapshotIfBehind(document, in: store) else { continue }
                        if !write(snapshot, document) {
                            try store.writeSnapshot(snapshot, of: document, at: Self.now)
                        }
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

    static var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    private static func snapshotIfBehind(_ document: String, in store: OpStore) throws(StoreError) -> EncodedSnapshot? {
        guard try store.latestSnapshotPosition(of: document) ?? 0 < store.head(of: document) else { return nil }
        return try store.encodedSnapshot(of: document)
    }
}
