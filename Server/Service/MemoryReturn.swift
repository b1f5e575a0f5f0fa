import CLibWebSockets
import Dispatch
import EaselSync

/// Hands memory freed by unloaded rooms back to the system. glibc keeps
/// what a room freed in its arenas for reuse, so a server whose crowd has
/// left would hold its busiest hour's memory for good: the ten-minute soak
/// in Docs/RELIABILITY.md ended holding 250 MB with no room loaded, and
/// 49 MB with this. At most every 10 s, off the service thread: a trim
/// walks every arena.
struct MemoryReturn {
    private var roomsUnloaded = false
    private var lastTrim: Timestamp?
    static let intervalMilliseconds: Int64 = 10_000

    mutating func roomUnloaded() {
        roomsUnloaded = true
    }

    mutating func trimIfDue(at now: Timestamp) {
        guard roomsUnloaded else { return }
        if let lastTrim, now.milliseconds(since: lastTrim) < Self.intervalMilliseconds, now >= lastTrim { return }
        roomsUnloaded = false
        lastTrim = now
        DispatchQueue.global(qos: .utility).async { _ = easel_return_free_memory() }
    }
}
