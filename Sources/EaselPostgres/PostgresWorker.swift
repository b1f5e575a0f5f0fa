import EaselLocking
import EaselProtocol
import EaselStore
import Foundation

/// The PostgreSQL store's threads, each with a connection of its own, as
/// the SQLite store has them: the commit thread takes appends from many
/// rooms and commits many in one transaction (group commit), calling each
/// back only after the commit returned; the load thread replays documents
/// for rooms; the snapshot thread snapshots them. A broken connection is
/// replaced on the next job.
public final class PostgresWorker: Sendable {
    public typealias AppendCompletion = @Sendable (AppendOutcome) -> Void
    /// Work with a thread's store; a connection that cannot be made fails it.
    public typealias Work = @Sendable (Result<PostgresStore, PostgresError>) -> Void

    enum Job: Sendable {
        case append(FencedAppend, AppendCompletion)
        case perform(run: Work, cancel: @Sendable () -> Void)
        case snapshot(String)

        @Sendable static func cancel(_ job: Job) {
            let closed = PostgresError(.connection, "the storage worker has shut down")
            switch job {
            case .append(_, let completion): completion(.failed(closed))
            case .perform(_, let cancel): cancel()
            case .snapshot: break
            }
        }
    }

    private let committer: WorkerThread<Job>
    private let loader: WorkerThread<Job>
    private let snapshotter: WorkerThread<Job>
    private let counters: Locked<CommitMetrics>

    /// Connects each thread (on the calling thread, so a bad URL fails
    /// here), migrating the schema first. `snapshotsStarted` runs first on
    /// the snapshot thread (to lower its priority, say).
    public init(
        url: String, snapshotEvery: Int = 10_000, snapshotsStarted: @escaping @Sendable () -> Void = {}
    ) throws(PostgresError) {
        let commits = Locked(ReconnectingStore(try PostgresStore(url: url, setup: LeaseKeeper.setup), url: url))
        let loads = Locked(
            ReconnectingStore(try PostgresStore(url: url, migrating: false, setup: LeaseKeeper.setup), url: url))
        let snapshots = Locked(
            ReconnectingStore(try PostgresStore(url: url, migrating: false, setup: LeaseKeeper.setup), url: url))
        let counters = Locked(CommitMetrics())
        self.counters = counters
        let snapshotter = WorkerThread<Job>(name: "easel-snapshot", started: snapshotsStarted, cancel: Job.cancel) {
            jobs in
            snapshots.withLock { connected in
                var seen: Set<String> = []
                for job in jobs {
                    switch job {
                    case .snapshot(let name) where seen.insert(name).inserted:
                        do throws(PostgresError) {
                            try Self.snapshotIfBehind(name, in: connected.store())
                        } catch {
                            counters.withLock { $0.snapshotsFailed += 1 }
                        }
                    case .perform(let run, _): run(Result { () throws(PostgresError) in try connected.store() })
                    default: break
                    }
                }
            }
        }
        self.snapshotter = snapshotter
        loader = WorkerThread(name: "easel-load", cancel: Job.cancel) { jobs in
            loads.withLock { connected in
                for case .perform(let run, _) in jobs {
                    run(Result { () throws(PostgresError) in try connected.store() })
                }
            }
        }
        let turns = Locked(
            CommitTurns(snapshotEvery: max(snapshotEvery, 1), counters: counters) { snapshotter.add(.snapshot($0)) })
        committer = WorkerThread(name: "easel-storage", cancel: Job.cancel) { jobs in
            commits.withLock { connected in turns.withLock { $0.run(jobs, with: &connected) } }
        }
    }

    /// Appends positioned ops under a lease; `completion` runs on the commit
    /// thread once they are committed (or not).
    public func append(_ append: FencedAppend, completion: @escaping AppendCompletion) {
        committer.add(.append(append, completion))
    }

    /// Runs `work` on the commit thread, between commits, in order with the
    /// appends queued before it.
    public func perform(_ work: @escaping Work) {
        committer.add(.perform(run: work, cancel: { work(.failure(PostgresError(.connection, "shut down"))) }))
    }

    /// Runs `work` on the load thread, so a big document's load holds no
    /// commit back.
    public func read(_ work: @escaping Work) {
        loader.add(.perform(run: work, cancel: { work(.failure(PostgresError(.connection, "shut down"))) }))
    }

    /// Snapshots a document soon, unless its latest snapshot is at its head.
    public func snapshot(_ document: String) {
        snapshotter.add(.snapshot(document))
    }

    /// Finishes what was queued (committing it), and ends the threads.
    public func shutdown() {
        committer.close()
        loader.close()
        snapshotter.close()
    }

    public var metrics: CommitMetrics { counters.value }

    private static func snapshotIfBehind(_ name: String, in store: PostgresStore) throws(PostgresError) {
        guard let document = try store.document(named: name),
            try store.latestSnapshotPosition(of: document) ?? 0 < document.head
        else { return }
        let (snapshot, epoch) = try store.encodedSnapshot(of: name)
        try store.writeSnapshot(snapshot, of: document, epoch: epoch, at: Int64(Date().timeIntervalSince1970 * 1000))
    }
}

/// A thread's store, connected again on the next use after its
/// connection broke (the server restarted, the network failed).
public final class ReconnectingStore {
    private var current: PostgresStore?
    private let url: String
    private let setup: [String]

    public init(_ store: PostgresStore, url: String, setup: [String] = LeaseKeeper.setup) {
        current = store
        self.url = url
        self.setup = setup
    }

    public func store() throws(PostgresError) -> PostgresStore {
        if let current, !current.connection.isBroken { return current }
        current = nil
        let fresh = try PostgresStore(url: url, migrating: false, setup: setup)
        current = fresh
        return fresh
    }
}

/// What the commit thread remembers between turns.
private struct CommitTurns: ~Copyable {
    let snapshotEvery: Int
    let counters: Locked<CommitMetrics>
    let requestSnapshot: @Sendable (String) -> Void
    var opsSinceSnapshot: [String: Int] = [:]
    /// Most appends one transaction takes, so callbacks are not held back
    /// behind an unbounded queue.
    let appendsPerTransaction = 256

    init(snapshotEvery: Int, counters: Locked<CommitMetrics>, requestSnapshot: @escaping @Sendable (String) -> Void) {
        self.snapshotEvery = snapshotEvery
        self.counters = counters
        self.requestSnapshot = requestSnapshot
    }

    mutating func run(_ jobs: [PostgresWorker.Job], with connected: inout ReconnectingStore) {
        var appends: [(FencedAppend, PostgresWorker.AppendCompletion)] = []
        for job in jobs {
            switch job {
            case .append(let append, let completion):
                appends.append((append, completion))
                if appends.count == appendsPerTransaction {
                    commit(appends, with: connected)
                    appends.removeAll(keepingCapacity: true)
                }
            case .perform(let run, _):
                commit(appends, with: connected)
                appends.removeAll(keepingCapacity: true)
                run(Result { () throws(PostgresError) in try connected.store() })
            case .snapshot:
                break
            }
        }
        commit(appends, with: connected)
    }

    private mutating func commit(
        _ appends: [(FencedAppend, PostgresWorker.AppendCompletion)], with connected: ReconnectingStore
    ) {
        guard !appends.isEmpty else { return }
        let outcomes: [AppendOutcome]
        do throws(PostgresError) {
            outcomes = try connected.store().commit(appends.map(\.0))
        } catch {
            outcomes = appends.map { _ in .failed(error) }
        }
        var committedOps = 0
        var failed = 0
        for ((append, _), outcome) in zip(appends, outcomes) {
            guard outcome == .committed else {
                failed += 1
                continue
            }
            committedOps += append.ops.count
            opsSinceSnapshot[append.document.name, default: 0] += append.ops.count
        }
        counters.withLock { counters in
            counters.transactions += 1
            counters.opsCommitted += committedOps
            counters.appendsFailed += failed
            counters.lastOpsPerTransaction = committedOps
            counters.maxOpsPerTransaction = max(counters.maxOpsPerTransaction, committedOps)
        }
        for ((_, completion), outcome) in zip(appends, outcomes) { completion(outcome) }
        for (document, count) in opsSinceSnapshot where count >= snapshotEvery {
            requestSnapshot(document)
            opsSinceSnapshot[document] = 0
        }
    }
}
