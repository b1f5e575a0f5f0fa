import EaselLocking
import EaselProtocol
import Foundation

/// Replays documents from the log on a thread and SQLite connection of
/// their own: rooms' loads, and snapshots, whose finished state it hands
/// to the storage thread to write. On the storage thread a replay held
/// every document's group commit back for as long as it took: a snapshot
/// of a 20,000-entity document 50-250 ms in `easel chaos hostile`, and
/// both grow with the document. Here a replay reads in a read transaction
/// while commits go on (WAL); the storage thread only inserts a snapshot's
/// encoded state. (Written from this connection instead, a snapshot would
/// hold SQLite's write lock while it wrote, and commits would wait for it.)
///
/// A storage worker has two: one for loads, at the server's priority,
/// since someone is waiting for each; one for snapshots, which only spare
/// later replays and may run below it (`easel serve` gives that thread
/// nice 10). While they shared one thread at nice 10, a joiner of a
/// 50,000-entity document got no welcome within a minute on a machine
/// busy with the whole test suite under AddressSanitizer. Once the
/// storage thread has shut down, a snapshot
/// still being built is written here: nothing else writes then. One that
/// failed loses nothing (the next is taken after another `snapshotEvery`
/// ops, or when the room unloads).
final class Replayer: Sendable {
    enum Job: Sendable {
        case read(run: @Sendable (OpStore) -> Void, cancel: @Sendable () -> Void)
        /// `keepingBase`: the document stays in use, so the state built is
        /// kept for its next snapshot (`SnapshotBase`); false once its room
        /// has unloaded.
        case snapshot(String, keepingBase: Bool)
    }

    /// Documents whose last snapshot's state is kept, at most: each is a
    /// whole document in memory beside its room's.
    static let keptBases = 8

    /// Queues a finished snapshot for the storage thread; false once that
    /// has shut down.
    typealias Write = @Sendable (_ snapshot: EncodedSnapshot, _ document: String) -> Bool

    private let thread: WorkerThread<Job>

    /// Opens a connection of its own, after the storage worker's (which
    /// migrates the schema).
    init(
        name: String, path: String, durability: Durability, metrics: MetricsBox,
        started: @escaping @Sendable () -> Void, write: @escaping Write
    ) throws(StoreError) {
        let state = Locked(State(store: try OpStore(path: path, durability: durability)))
        thread = WorkerThread(name: name, started: started, cancel: Self.cancel) { jobs in
            state.withLock { state in
                for case .read(let run, _) in jobs { run(state.store) }
                var keep: [String: Bool] = [:]
                var order: [String] = []
                for case .snapshot(let document, let keepingBase) in jobs {
                    if keep[document] == nil { order.append(document) }
                    keep[document] = (keep[document] ?? true) && keepingBase
                }
                for document in order {
                    var base = state.bases.removeValue(forKey: document)
                    do throws(StoreError) {
                        // Not behind: nothing to write, and the base is kept as it was.
                        if let snapshot = try Self.snapshotIfBehind(document, in: state.store, continuing: &base),
                            !write(snapshot, document)
                        {
                            try state.store.writeSnapshot(snapshot, of: document, at: Self.now)
                        }
                    } catch {
                        metrics.recordFailedSnapshot()
                    }
                    if keep[document] == true, let base { state.keep(base, of: document) }
                }
            }
        }
    }

    /// Runs `run` with this connection; `cancel` instead once the thread
    /// has shut down.
    func read(_ run: @escaping @Sendable (OpStore) -> Void, cancel: @escaping @Sendable () -> Void) {
        thread.add(.read(run: run, cancel: cancel))
    }

    /// Snapshots `document` soon, unless its latest snapshot is at its head
    /// by then; `keepingBase` as in `Job.snapshot`.
    func requestSnapshot(_ document: String, keepingBase: Bool) {
        thread.add(.snapshot(document, keepingBase: keepingBase))
    }

    /// Finishes what was asked for, and ends the thread.
    func close() {
        thread.close()
    }

    func closeWithoutWaiting() {
        thread.closeWithoutWaiting()
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    @Sendable private static func cancel(_ job: Job) {
        if case .read(_, let cancel) = job { cancel() }
    }

    private static func snapshotIfBehind(
        _ document: String, in store: OpStore, continuing base: inout SnapshotBase?
    ) throws(StoreError) -> EncodedSnapshot? {
        guard try store.latestSnapshotPosition(of: document) ?? 0 < store.head(of: document) else { return nil }
        return try store.encodedSnapshot(of: document, continuing: &base)
    }

    /// The thread's connection, and the states its snapshots were built
    /// from, oldest kept first.
    private struct State {
        let store: OpStore
        var bases: [String: SnapshotBase] = [:]
        var keptOrder: [String] = []

        init(store: OpStore) {
            self.store = store
        }

        mutating func keep(_ base: SnapshotBase, of document: String) {
            keptOrder.removeAll { $0 == document }
            keptOrder.append(document)
            bases[document] = base
            while keptOrder.count > Replayer.keptBases { bases[keptOrder.removeFirst()] = nil }
        }
    }
}
