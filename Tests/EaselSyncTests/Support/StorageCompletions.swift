import EaselLocking
import EaselProtocol
import EaselSync
import EaselTestSupport

/// Storage answers, queued: storage calls back with @Sendable closures, and
/// the sans-IO server must only be fed from the test's own thread.
final class StorageCompletions: Sendable {
    private let queue = Locked<[StorageCompletion]>([])

    /// Hands a storage output to storage; other outputs are returned for
    /// the caller to carry out.
    func perform(_ output: ServerOutput, on storage: InMemoryRoomStorage) -> ServerOutput? {
        storage.perform(output) { [queue] completion in queue.withLock { $0.append(completion) } } ? nil : output
    }

    var isEmpty: Bool { queue.withLock { $0.isEmpty } }

    /// Feeds every queued answer to the server; returns how many there were.
    @discardableResult
    func deliver(to server: SyncServer, at now: Timestamp) -> Int {
        let completions = queue.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
        for completion in completions { completion.deliver(to: server, at: now) }
        return completions.count
    }

    /// Forgets every answer, as a crashed server never hears them.
    func drop() {
        queue.withLock { $0.removeAll() }
    }
}
