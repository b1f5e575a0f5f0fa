import EaselBotScript
import Histogram

/// Counts and acknowledgement latencies across a fleet: since the start,
/// and since the last progress line.
struct FleetTally: Sendable {
    private(set) var acknowledged = 0
    private(set) var refused = 0
    /// Microseconds from making an op to its acknowledgement.
    private(set) var latency = FleetTally.histogram()
    private(set) var window = FleetTally.histogram()
    private(set) var windowAcknowledged = 0

    private static func histogram() -> Histogram<UInt64> {
        // Up to 10 minutes, three significant digits.
        Histogram(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
    }

    mutating func record(_ wait: Duration) {
        let microseconds = UInt64(clamping: max(0, wait.wholeMicroseconds))
        _ = latency.record(min(microseconds, latency.highestTrackableValue))
        _ = window.record(min(microseconds, window.highestTrackableValue))
    }

    mutating func acknowledged(_ count: Int) {
        acknowledged += count
        windowAcknowledged += count
    }

    mutating func refused(_ count: Int) {
        refused += count
    }

    /// The window's figures, and a fresh window.
    mutating func takeWindow() -> (acknowledged: Int, latency: Histogram<UInt64>) {
        defer {
            window.reset()
            windowAcknowledged = 0
        }
        return (windowAcknowledged, window)
    }
}

extension Duration {
    var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
