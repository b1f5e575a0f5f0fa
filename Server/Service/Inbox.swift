import EaselLocking
import EaselModel
import EaselProtocol
import EaselSync
import Foundation

/// What other threads hand the service thread: storage answers, encoded
/// welcomes and a stop request. Whoever adds to it wakes the loop with
/// `lws_cancel_service`.
final class Inbox: Sendable {
    enum Item: Sendable {
        case storage(StorageCompletion)
        /// A shared welcome's content, by its number.
        case encoded(UInt64, [OutFrame])
        /// The blob thread's answer for an HTTP exchange.
        case blob(UInt64, BlobExchange.StorageAnswer)
        /// A connection the front door accepted.
        case adopt(Int32)
    }

    private struct State {
        var items: [Item] = []
        var stopRequested = false
    }

    private let state = Locked(State())

    /// Queues an item; true when the inbox was empty, so only the first of
    /// a burst (a group commit's many completions) wakes the loop.
    func add(_ item: Item) -> Bool {
        state.withLock { state in
            state.items.append(item)
            return state.items.count == 1
        }
    }

    func requestStop() {
        state.withLock { $0.stopRequested = true }
    }

    /// Everything queued, and whether a stop was asked for.
    func drain() -> (items: [Item], stop: Bool) {
        state.withLock { state in
            var taken: [Item] = []
            swap(&taken, &state.items)
            return (taken, state.stopRequested)
        }
    }
}
