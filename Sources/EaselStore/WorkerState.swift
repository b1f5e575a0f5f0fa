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
                var results = [Result<Void, StoreError>](repeating: .success(()), count: appends.count)
                for indices in Self.byDocument(appends) {
                    // A document's appends follow each other: one savepoint,
                    // one head lookup and one prepared insert for all of them.
                    // Only if that fails does each get its own savepoint, so
                    // a bad append fails alone, as it would have alone.
                    if indices.count > 1,
                        case .success = try attempt(
                            indices.flatMap { appends[$0].ops }, to: appends[indices[0]].document)
                    {
                        continue
                    }
                    for index in indices {
                        results[index] = try attempt(appends[index].ops, to: appends[index].document)
                    }
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

    /// Appends ops to a document in a savepoint of the open transaction,
    /// and says how that went. An I/O error rolls back the whole
    /// transaction, not just the savepoint: then every append in it has
    /// failed, and this throws.
    private func attempt(_ ops: [StoredOp], to document: String) throws(StoreError) -> Result<Void, StoreError> {
        let result = Result { () throws(StoreError) in
            if document == faults.failAppendsTo {
                throw StoreError(
                    .sqlite(code: 10), "injected fault: appends to this document fail", document: document,
                    sql: "INSERT INTO ops …")
            }
            try store.savepoint { () throws(StoreError) in try store.append(ops, to: document) }
        }
        if case .failure(let error) = result, !store.database.isInTransaction { throw error }
        return result
    }

    /// The indices of the appends to each document, in order, documents
    /// in the order they first came.
    private static func byDocument(_ appends: [AppendJob]) -> [[Int]] {
        var slots: [String: Int] = [:]
        var groups: [[Int]] = []
        for (index, job) in appends.enumerated() {
            if let slot = slots[job.document] {
                groups[slot].append(index)
            } else {
                slots[job.document] = groups.count
                groups.append([index])
            }
        }
        return groups
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
