import EaselModel
import EaselProtocol

/// Storage in memory for tests and the network simulation, with a switch
/// for what a real store does only when it crashes: appends stay pending
/// until `commitPending()`, and `crash()` loses everything not committed —
/// without calling anyone back, as a killed process would not.
///
/// Not thread-safe: the simulation runs on one thread.
public final class InMemoryRoomStorage: RoomStorage, @unchecked Sendable {
    private struct Pending {
        var document: String
        var ops: [LoggedOp]
        var completion: @Sendable (Result<Void, RoomStorageError>) -> Void
    }

    private var committed: [String: CommittedHistory] = [:]
    private var pending: [Pending] = []
    /// Epochs for documents first loaded here: from a seed, so runs replay.
    private var epochs: SplitMix64
    /// When true, appends commit at once, as a store with no latency would.
    public var commitsImmediately: Bool

    public init(seed: UInt64 = 1, commitsImmediately: Bool = false) {
        epochs = SplitMix64(seed: seed)
        self.commitsImmediately = commitsImmediately
    }

    public func load(
        _ document: String, completion: @escaping @Sendable (Result<CommittedHistory, RoomStorageError>) -> Void
    ) {
        completion(.success(history(of: document)))
    }

    public func append(
        _ ops: [LoggedOp], to document: String,
        completion: @escaping @Sendable (Result<Void, RoomStorageError>) -> Void
    ) {
        pending.append(Pending(document: document, ops: ops, completion: completion))
        if commitsImmediately { commitPending() }
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
            let result = commit(append.ops, to: append.document)
            append.completion(result)
        }
    }

    /// Loses every pending append, calling nobody back.
    public func crash() {
        pending.removeAll()
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

    private func commit(_ ops: [LoggedOp], to document: String) -> Result<Void, RoomStorageError> {
        var history = history(of: document)
        var expected = history.head + 1
        var ids = Set(history.tail.map(\.op.id))
        for logged in ops {
            guard logged.position == expected else {
                return .failure(RoomStorageError("\(document): position \(logged.position) where \(expected) belongs"))
            }
            guard ids.insert(logged.op.id).inserted else {
                return .failure(RoomStorageError("\(document): op \(logged.op.id) is already in the log"))
            }
            expected += 1
        }
        for logged in ops {
            history.tail.append(logged)
            let replica = logged.op.id.replica
            history.highWater[replica] = max(history.highWater[replica] ?? 0, logged.op.id.counter)
        }
        committed[document] = history
        return .success(())
    }
}
