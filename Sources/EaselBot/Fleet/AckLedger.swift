import DequeModule
import EaselBotScript
import EaselModel

/// What became of one bot's ops: when each batch was made, until the
/// server acknowledged (or refused) it. Acknowledgements come in the order
/// ops were made (the server acknowledges in order, and the session reports
/// events in the order they arrive), so batches leave from the front.
struct AckLedger: Sendable {
    /// Batches not yet acknowledged: the highest counter among their ops,
    /// and when they were made.
    private var waiting: Deque<(upTo: UInt64, madeAt: ContinuousClock.Instant)> = []
    private(set) var made = 0
    private(set) var acknowledged = 0
    private(set) var refused = 0
    /// Why the first refusals happened (at most `reasonsKept`), for a
    /// report to say more than a count.
    private(set) var refusalReasons: [String] = []
    static let reasonsKept = 5
    /// The highest counter among this bot's acknowledged ops.
    private(set) var highestAcknowledged: UInt64 = 0

    mutating func made(_ count: Int, upTo counter: UInt64, at instant: ContinuousClock.Instant) {
        guard count > 0 else { return }
        made += count
        waiting.append((counter, instant))
    }

    /// Notes acknowledged ops and hands each one's wait to `record`.
    mutating func acknowledged(
        _ ids: [OpID], at instant: ContinuousClock.Instant, record: (Duration) -> Void
    ) {
        for id in ids {
            while let first = waiting.first, first.upTo < id.counter { waiting.removeFirst() }
            if let first = waiting.first { record(instant - first.madeAt) }
            highestAcknowledged = max(highestAcknowledged, id.counter)
        }
        acknowledged += ids.count
    }

    mutating func refused(_ count: Int, because reason: String) {
        refused += count
        if refusalReasons.count < Self.reasonsKept { refusalReasons.append(reason) }
    }
}
