import EaselSync
import Foundation

extension Timestamp {
    /// The wall clock: ops record when the server received them.
    static var now: Timestamp { Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)) }
}
