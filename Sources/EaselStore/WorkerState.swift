import EaselLocking
import Foundation

struct AppendJob: Sendable {
    var document: String
    var ops: [StoredOp]
    var completion: StorageWorker.Completion
}

enum Job: Sendable {
    case append(AppendJob)
    /// Work with the store; `cancel` runs instead if the worker has stopped.
    case perform(run: @Sendable (OpStore) -> Void, cancel: @Sendable () -> Void)

    /// What a job that came after the worker stopped gets instead.
    @Sendable static func cancel(_ job: Job) {
        switch job {
        case .append(let append):
            append.completion(
                .failure(StoreError(.closed, "the storage worker has shut down", document: append.document)))
        case .perform(_, let cancel):
            cancel()
        }
    }
}

/// The worker's counters, read from any thread.
final class MetricsBox: Sendable {
    private let counters = Locked(CommitMetrics())

    var value: CommitMetrics { counters.withLock { $0 } }

    func recordFailedSnapshot() {
        counters.withLock { $0.snapshotsFailed += 1 }
    }

    func record(committedOps: Int, failedAppends: Int) {
        counters.withLock { counters in
            counters.transactions += 1
            counters.opsCommitted += committedOps
            counters.appendsFailed += failedAppends
            counters.lastOpsPerTransaction = committedOps
            counters.maxOpsPerTransaction = max(counters.maxOpsPerTransaction, committedOps)
        }
    }
}

/// The store and what the worker remembers between turns, for the storage
/// thread alone: it sits in a mutex only that thread takes, so what
/// crosses threads is checked by the compiler instead of promised.
final class WorkerState: Sendable {
    private let turns: Locked<Turns>
    let metrics: MetricsBox

    init(
        store: sending OpStore, snapshotEvery: Int, faults: StorageFaults, metrics: MetricsBox,
        requestSnapshot: @escaping @Sendable (String) -> Void
    ) {
        self.metrics = metrics
        turns = Locked(
            Turns(
                store: store, snapshotEvery: max(snapshotEvery, 1), faults: faults, requestSnapshot: requestSnapshot))
    }

    /// Runs a batch of jobs in order: consecutive appends share one
    /// transaction, other work runs between.
    func run(_ jobs: [Job]) {
        turns.withLock { $0.run(jobs, metrics: metrics) }
    }
}

private struct Turns: ~Copyable {
    let store: OpStore
    let snapshotEvery: Int
    let faults: StorageFaults
    /// Hands a document to the snapshot thread.
    let requestSnapshot: @Sendable (String) -> Void
    var opsSinceSnapshot: [String: Int] = [:]
    /// Most appends one transaction takes, so callbacks are not held back
    /// behind an unbounded queue.
    let appendsPerTransaction = 256

    mutating func run(_ jobs: [Job], metrics: MetricsBox) {
        var appends: [AppendJob] = []
        for job in jobs {
            switch job {
            case .append(let append):
                appends.append(append)
                if appends.count == appendsPerTransaction {
                    commit(appends, metrics: metrics)
                    appends.removeAll(keepingCapacity: true)
                }
            case .perform(let work, _):
                commit(appends, metrics: metrics)
                appends.removeAll(keepingCapacity: true)
                work(store)
            }
        }
        commit(appends, metrics: metrics)
    }

    private mutating func commit(_ appends: [AppendJob], metrics: MetricsBox) {
        guard !appends.isEmpty else { return }
        var results: [Result<Void, StoreError>]
        do throws(StoreError) {
            results = try store.database.transaction(
                beforeCommit: { results in
                    guard faults.acknowledgeBeforeCommit else { return }
                    callBack(appends, results)
                    // Holds the window between ack and commit open as long as
                    // a slow disk's sync would: where syncs are fast, random
                    // kills could miss the bug this fault plants.
                    usleep(2_000)
                }
            ) { () throws(StoreError) -> [Result<Void, StoreError>] in
                var results: [Result<Void, StoreError>] = []
                results.reserveCapacity(appends.count)
                for job in appends {
                    let result = Result { () throws(StoreError) in
                        if job.document == faults.failAppendsTo {
                            throw StoreError(
                                .sqlite(code: 10), "injected fault: appends to this document fail",
                                document: job.document, sql: "INSERT INTO ops …")
                        }
                        try store.savepoint { () throws(StoreError) in try store.append(job.ops, to: job.document) }
                    }
                    // An I/O error rolls back the whole transaction, not just
                    // the savepoint: then every append in it has failed.
                    if case .failure(let error) = result, !store.database.isInTransaction { throw error }
                    results.append(result)
                }
                return results
            }
        } catch {
            results = appends.map { _ in .failure(error) }
            if faults.acknowledgeBeforeCommit { return }
        }
        var committedOps = 0
        var failedAppends = 0
        for (job, result) in zip(appends, results) {
            if case .success = result {
                committedOps += job.ops.count
                opsSinceSnapshot[job.document] = countSinceSnapshot(of: job.document) + job.ops.count
            } else {
                failedAppends += 1
            }
        }
        metrics.record(committedOps: committedOps, failedAppends: failedAppends)
        if !faults.acknowledgeBeforeCommit { callBack(appends, results) }
        snapshotWhereDue()
    }

    private func callBack(_ appends: [AppendJob], _ results: [Result<Void, StoreError>]) {
        for (job, result) in zip(appends, results) { job.completion(result) }
    }

    /// Asks for a snapshot of every document that has taken `snapshotEvery`
    /// ops since its last one. A failed snapshot is counted and tried again
    /// only after another `snapshotEvery` ops, not after every commit.
    private mutating func snapshotWhereDue() {
        for (document, count) in opsSinceSnapshot where count >= snapshotEvery {
            requestSnapshot(document)
            opsSinceSnapshot[document] = 0
        }
    }

    /// Ops a document took since its latest snapshot, counted from the
    /// store the first time the worker sees it — so a server restarted
    /// more often than every `snapshotEvery` ops still snapshots.
    private mutating func countSinceSnapshot(of document: String) -> Int {
        if let count = opsSinceSnapshot[document] { return count }
        let head = (try? store.head(of: document)) ?? 0
        let snapshot = (try? store.latestSnapshotPosition(of: document)) ?? 0
        return Int(clamping: head - min(head, snapshot))
    }
}
