import EaselSync
import Foundation

private let processStart = (wall: Int64(Date().timeIntervalSince1970 * 1000), instant: ContinuousClock.now)

extension Timestamp {
    /// The wall clock as it read when the process started, advanced by a
    /// monotonic clock since: ops record about when they were received, and
    /// the rooms' timers never stall or leap when the wall clock is set.
    static var now: Timestamp {
        let elapsed = ContinuousClock.now - processStart.instant
        return Timestamp(milliseconds: processStart.wall + elapsed.wholeMilliseconds)
    }
}
