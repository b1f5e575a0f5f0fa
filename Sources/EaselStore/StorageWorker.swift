import EaselLocking
import EaselModel
import Foundation

/// The storage thread: takes appends from many rooms, commits many of them
/// per transaction (group commit), and calls each back only after the
/// commit returned — so nothing is acknowledged before it is durable.
///
/// Each append runs in its own savepoint, so one room's failure (a gap, a
/// duplicate) fails only that append. If the commit itself fails, every
/// append in it fails. Other work runs between commits on the same
/// thread, which alone writes; documents are replayed on threads and
/// connections of their own (`Replayer`): rooms' loads on one, snapshots
/// on another.
public final class StorageWorker: Sendable {
    public typealias Completion = @Sendable (Result<Void, StoreError>) -> Void

    private let thread: WorkerThread<Job>
    private let state: WorkerState
    private let loader: Replayer
    private let snapshotter: Replayer
    /// Where the snapshot thread hands finished snapshots: this worker's
    /// thread, until it shuts down.
    private let snapshotWriter = Locked<WorkerThread<Job>?>(nil)

    /// Opens the store (on the calling thread) and starts the worker.
    /// `snapshotsStarted` runs first on the snapshot thread (to lower its
    /// priority, say), `loadsStarted` on the load thread.
    public init(
        path: String, durability: Durability = .full, snapshotEvery: Int = 10_000,
        faults: StorageFaults = StorageFaults(), snapshotsStarted: @escaping @Sendable () -> Void = {},
        loadsStarted: @escaping @Sendable () -> Void = {}
    ) throws(StoreError) {
        let store = try OpStore(path: path, durability: durability)
        let metrics = MetricsBox()
        let writer = snapshotWriter
        let write: Replayer.Write = { snapshot, document in
            let now = Replayer.now
            return writer.value?.add(
                .perform(
                    run: { store in
                        do throws(StoreError) {
                            try store.writeSnapshot(snapshot, of: document, at: now)
                        } catch {
                            metrics.recordFailedSnapshot()
                        }
                    }, cancel: {})) ?? false
        }
        let loader = try Replayer(
            name: "easel-load", path: path, durability: durability, metrics: metrics, started: loadsStarted,
            write: write)
        do throws(StoreError) {
            snapshotter = try Replayer(
                name: "easel-snapshot", path: path, durability: durability, metrics: metrics,
                started: snapshotsStarted, write: write)
        } catch {
            // Its thread runs already, and nothing else would end it.
            loader.close()
            throw error
        }
        self.loader = loader
        state = WorkerState(
            store: store, snapshotEvery: snapshotEvery, faults: faults, metrics: metrics,
            requestSnapshot: { [snapshotter] in snapshotter.requestSnapshot($0, keepingBase: true) })
        thread = WorkerThread(name: "easel-storage", cancel: Job.cancel, run: state.run)
        snapshotWriter.withLock { $0 = thread }
    }

    /// Snapshots a document soon, on the snapshot thread, unless its latest
    /// snapshot is at its head by then: after a room unloads, so the next
    /// load replays little.
    public func snapshot(_ document: String) {
        snapshotter.requestSnapshot(document, keepingBase: false)
    }

    /// Runs `work` on the load thread, with its own connection, so a
    /// long read (a big document's load) holds no commit back. Reads only:
    /// a read sees every commit that finished before it began. `completion`
    /// runs there, or at once if the worker has shut down.
    public func read<T: Sendable>(
        _ work: @escaping @Sendable (OpStore) throws(StoreError) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let (run, cancel) = Self.job(work, completion: completion)
        loader.read(run, cancel: cancel)
    }

    /// `work` and its completion as a job's two ends: what runs with the
    /// store, and what a worker that has shut down calls instead.
    private static func job<T: Sendable>(
        _ work: @escaping @Sendable (OpStore) throws(StoreError) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) -> (run: @Sendable (OpStore) -> Void, cancel: @Sendable () -> Void) {
        (
            { store in completion(Result { () throws(StoreError) -> T in try work(store) }) },
            { completion(.failure(StoreError(.closed, "the storage worker has shut down"))) }
        )
    }

    /// Appends positioned ops to a document; `completion` runs on the
    /// storage thread once they are committed (or failed), or at once on
    /// the caller's thread if the worker has shut down.
    public func append(_ ops: [StoredOp], to document: String, completion: @escaping Completion) {
        thread.add(.append(AppendJob(document: document, ops: ops, completion: completion)))
    }

    /// Runs `work` with the store on the storage thread, between commits.
    public func perform<T: Sendable>(
        _ work: @escaping @Sendable (OpStore) throws(StoreError) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let (run, cancel) = Self.job(work, completion: completion)
        thread.add(.perform(run: run, cancel: cancel))
    }

    /// Stops taking work, finishes what was queued (committing it), and
    /// waits for the thread to end — except when called from a completion,
    /// on the storage thread itself, where it returns at once and the
    /// queue drains after. Work added afterwards fails with `.closed`, its
    /// completion called at once on the caller's thread.
    public func shutdown() {
        if thread.closeWithoutWaiting() {
            // On the storage thread: nothing may wait here, the replay
            // threads included.
            loader.closeWithoutWaiting()
            snapshotter.closeWithoutWaiting()
            return
        }
        thread.close()
        loader.close()
        // After the commits, which may have asked for snapshots: those are
        // written by the snapshot thread itself now.
        snapshotter.close()
        snapshotWriter.withLock { $0 = nil }
    }

    deinit {
        thread.closeWithoutWaiting()
        loader.closeWithoutWaiting()
        snapshotter.closeWithoutWaiting()
        snapshotWriter.withLock { $0 = nil }
    }

    /// Counted before callbacks run, so a caller called back sees its commit.
    public var metrics: CommitMetrics {
        state.metrics.value
    }
}

/// Counters for metrics.
public struct CommitMetrics: Hashable, Sendable {
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

/// Faults that tests switch on to prove their checks can fail.
public struct StorageFaults: Hashable, Sendable {
    /// Calls appends back BEFORE committing them: the bug the crash test
    /// exists to catch.
    public var acknowledgeBeforeCommit = false
    /// Fails every append to this document as an I/O error would (SQLite
    /// code 10), the others going on: what the log's storage lines are
    /// tested with.
    public var failAppendsTo: String?

    public init(acknowledgeBeforeCommit: Bool = false, failAppendsTo: String? = nil) {
        self.acknowledgeBeforeCommit = acknowledgeBeforeCommit
        self.failAppendsTo = failAppendsTo
    }
}
