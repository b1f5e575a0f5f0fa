import EaselModel
import EaselProtocol
import EaselSync
import Foundation

/// What other threads hand the service thread: storage answers, encoded
/// welcomes and a stop request. Whoever adds to it wakes the loop with
/// `lws_cancel_service`.
final class Inbox: @unchecked Sendable {
    enum Item {
        case storage(StorageCompletion)
        case encoded(EncodingJob, [WireEncoding: [OutFrame]])
        /// The blob thread's answer for an HTTP exchange.
        case blob(UInt64, BlobEvent)
    }

    private let lock = NSLock()
    private var items: [Item] = []
    private var stopRequested = false

    /// Queues an item; true when the inbox was empty, so only the first of
    /// a burst (a group commit's many completions) wakes the loop.
    func add(_ item: Item) -> Bool {
        lock.withLock {
            items.append(item)
            return items.count == 1
        }
    }

    func requestStop() {
        lock.withLock { stopRequested = true }
    }

    /// Everything queued, and whether a stop was asked for.
    func drain() -> (items: [Item], stop: Bool) {
        lock.withLock {
            var taken: [Item] = []
            swap(&taken, &items)
            return (taken, stopRequested)
        }
    }
}
