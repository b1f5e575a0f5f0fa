import EaselProtocol
import EaselSync
import EaselTestSupport

/// Storage answers, queued: storage calls back with @Sendable closures, and
/// the sans-IO server must only be fed from the test's own thread.
final class StorageCompletions: Sendable {
    enum Completion {
        case loaded(DocumentName, Result<CommittedHistory, RoomStorageError>)
        case stored(StorageTicket, Result<Void, RoomStorageError>)
    }

    private let queue = Locked<[Completion]>([])

    /// Hands a `.load` or `.append` output to storage; other outputs are
    /// returned for the caller to carry out.
    func perform(_ output: ServerOutput, on storage: InMemoryRoomStorage) -> ServerOutput? {
        switch output {
        case .load(let document):
            storage.load(document.rawValue) { [queue] result in
                queue.withLock { $0.append(.loaded(document, result)) }
            }
            return nil
        case .append(let ops, let document, let ticket):
            storage.append(ops, to: document.rawValue) { [queue] result in
                queue.withLock { $0.append(.stored(ticket, result)) }
            }
            return nil
        default:
            return output
        }
    }

    var isEmpty: Bool { queue.withLock { $0.isEmpty } }

    /// Feeds every queued answer to the server; returns how many there were.
    @discardableResult
    func deliver(to server: SyncServer, at now: Timestamp) -> Int {
        let completions = queue.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
        for completion in completions {
            switch completion {
            case .loaded(let document, let result): server.loaded(document, result, at: now)
            case .stored(let ticket, let result): server.stored(ticket, result, at: now)
            }
        }
        return completions.count
    }

    /// Forgets every answer, as a crashed server never hears them.
    func drop() {
        queue.withLock { $0.removeAll() }
    }
}
