import EaselModel
import EaselProtocol

/// Storage in memory for tests and the network simulation, with a switch
/// for what a real store does only when it crashes: appends stay pending
/// until `commitPending()`, and `crash()` loses everything not committed —
/// without calling anyone back, as a killed process would not.
///
/// Not thread-safe: the simulation runs on one thread.
/// Unchecked: the port asks for Sendable; this storage is used on one thread.
public final class InMemoryRoomStorage: RoomStorage, @unchecked Sendable {
    private struct Pending {
        var document: String
        var ops: [LoggedOp]
        var completion: @Sendable (Result<Void, StorageFailure>) -> Void
    }

    private var committed: [String: CommittedHistory] = [:]
    /// Every op ever committed per document, compaction or not: what tests
    /// check acknowledged ops against.
    private var everCommitted: [String: [LoggedOp]] = [:]
    private var pending: [Pending] = []
    private var pendingLoads:
        [(document: String, completion: @Sendable (Result<CommittedHistory, StorageFailure>) -> Void)] = []
    private var pendingWarms: [() -> Void] = []
    /// Epochs for documents first loaded here: from a seed, so runs replay.
    private var epochs: SplitMix64
    /// When true, appends commit at once, as a store with no latency would.
    public var commitsImmediately: Bool
    /// When true, loads wait for `completeLoads()`, as a slow disk would.
    public var defersLoads = false
    /// When set, every load and append fails with this error.
    public var failure: StorageFailure?
    public private(set) var metrics = StorageMetrics()
    /// The documents whose rooms unloaded, with their heads, in order.
    public private(set) var unloads: [(document: DocumentName, head: UInt64)] = []

    public init(seed: UInt64 = 1, commitsImmediately: Bool = false) {
        epochs = SplitMix64(seed: seed)
        self.commitsImmediately = commitsImmediately
    }

    public func load(
        _ document: DocumentName, completion: @escaping @Sendable (Result<CommittedHistory, StorageFailure>) -> Void
    ) {
        if defersLoads {
            pendingLoads.append((document.rawValue, completion))
        } else {
            completion(failure.map { .failure($0) } ?? .success(history(of: document.rawValue)))
        }
    }

    public func loadIfStored(
        _ document: DocumentName, completion: @escaping @Sendable (Result<CommittedHistory?, StorageFailure>) -> Void
    ) {
        let answer = { [self] in completion(failure.map { .failure($0) } ?? .success(committed[document.rawValue])) }
        if defersLoads { pendingWarms.append(answer) } else { answer() }
    }

    /// Whether the document was ever loaded or written here.
    public func holds(_ document: DocumentName) -> Bool { committed[document.rawValue] != nil }

    /// Answers the loads waiting since `defersLoads` was set: the warm
    /// loads, then the others.
    public func completeLoads() {
        let warms = pendingWarms
        pendingWarms = []
        for answer in warms { answer() }
        let loads = pendingLoads
        pendingLoads = []
        for load in loads { load.completion(failure.map { .failure($0) } ?? .success(history(of: load.document))) }
    }

    public func append(
        _ ops: [LoggedOp], to document: DocumentName,
        completion: @escaping @Sendable (Result<Void, StorageFailure>) -> Void
    ) {
        pending.append(Pending(document: document.rawValue, ops: ops, completion: completion))
        if commitsImmediately { commitPending() }
    }

    public func unloaded(_ document: DocumentName, head: UInt64) {
        unloads.append((document, head))
    }

    /// Appends waiting to be committed.
    public var pendingCount: Int { pending.count }

    /// Commits the oldest `count` pending appends (all by default), in
    /// order, and calls each back. An append that does not continue its
    /// log or repeats an op fails, as EaselStore would refuse it.
    public func commitPending(_ count: Int = .max) {
        let batch = pending.prefix(count)
        pending.removeFirst(batch.count)
        for append in batch {
            let result = failure.map { .failure($0) } ?? commit(append.ops, to: append.document)
            if case .success = result {
                metrics.transactions += 1
                metrics.opsCommitted += append.ops.count
                metrics.lastOpsPerTransaction = append.ops.count
                metrics.maxOpsPerTransaction = max(metrics.maxOpsPerTransaction, append.ops.count)
            } else {
                metrics.appendsFailed += 1
            }
            append.completion(result)
        }
    }

    /// Loses every pending append and load, calling nobody back.
    public func crash() {
        pending.removeAll()
        pendingLoads.removeAll()
        pendingWarms.removeAll()
    }

    /// Every op ever committed to the document, in position order, whatever
    /// compaction dropped since.
    public func commitLog(of document: String) -> [LoggedOp] {
        everCommitted[document] ?? []
    }

    /// Replaces the document's history with an earlier state under a new
    /// epoch, as restoring a backup does.
    public func restore(_ document: String, to history: CommittedHistory) {
        var restored = history
        restored.epoch = Epoch(rawValue: epochs.next())
        committed[document] = restored
        everCommitted[document] = restored.tail
    }

    /// Replaces the tail covered so far by a snapshot, as compaction does.
    public func snapshotAndCompact(_ document: String) {
        var history = history(of: document)
        history.snapshot = StateSnapshot(
            position: history.head, state: history.document().snapshotOps, highWater: history.highWater)
        history.tail = []
        committed[document] = history
    }

    /// The committed history, without waiting for a callback.
    public func history(of document: String) -> CommittedHistory {
        if let history = committed[document] { return history }
        let history = CommittedHistory(name: document, epoch: Epoch(rawValue: epochs.next()))
        committed[document] = history
        return history
    }

    private func commit(_ ops: [LoggedOp], to document: String) -> Result<Void, StorageFailure> {
        var history = history(of: document)
        var expected = history.head + 1
        var ids = Set(history.tail.map({ $0.op.id }))
        for logged in ops {
            guard logged.position == expected else {
                return .failure(
                    StorageFailure(.conflict, "\(document): position \(logged.position) where \(expected) belongs"))
            }
            guard ids.insert(logged.op.id).inserted else {
                return .failure(StorageFailure(.conflict, "\(document): op \(logged.op.id) is already in the log"))
            }
            expected += 1
        }
        for logged in ops {
            history.tail.append(logged)
            let replica = logged.op.id.replica
            history.highWater[replica] = max(history.highWater[replica] ?? 0, logged.op.id.counter)
        }
        committed[document] = history
        everCommitted[document, default: []] += ops
        return .success(())
    }
}
