import EaselModel
import EaselProtocol
import EaselStore
import EaselSync

/// A storage adapter whose loads and warm loads are one read that may
/// create the document: a hello's load creates it, a warm load (a page
/// naming it before any hello) does not.
protocol LoadsCreating: RoomStorage {
    /// The document's history; nil when it is not stored and `creating` is false.
    func load(
        _ document: DocumentName, creating: Bool,
        completion: @escaping @Sendable (Result<CommittedHistory?, StorageFailure>) -> Void)
}

extension LoadsCreating {
    func load(
        _ document: DocumentName, completion: @escaping @Sendable (Result<CommittedHistory, StorageFailure>) -> Void
    ) {
        load(document, creating: true) { loaded in
            completion(
                loaded.flatMap { history in
                    history.map { .success($0) }
                        ?? .failure(StorageFailure(.unavailable, "\(document.rawValue) was not created"))
                })
        }
    }

    func loadIfStored(
        _ document: DocumentName, completion: @escaping @Sendable (Result<CommittedHistory?, StorageFailure>) -> Void
    ) {
        load(document, creating: false, completion: completion)
    }
}

extension StorageMetrics {
    /// A storage worker's commit counters, as the port reports them.
    init(_ commits: CommitMetrics) {
        self.init()
        transactions = commits.transactions
        opsCommitted = commits.opsCommitted
        appendsFailed = commits.appendsFailed
        snapshotsFailed = commits.snapshotsFailed
        lastOpsPerTransaction = commits.lastOpsPerTransaction
        maxOpsPerTransaction = commits.maxOpsPerTransaction
    }
}
