/// A moment, in milliseconds: what the host's clock said when an event
/// happened. The sans-IO state machines never read a clock; they are told
/// the time with every event, so tests and the simulation control it.
///
/// A server passes wall-clock milliseconds since 1970 (ops record when they
/// were received); a client may use any origin.
public struct Timestamp: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: Int64

    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    public init(milliseconds: Int64) {
        rawValue = milliseconds
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.rawValue < rhs.rawValue }

    public static func + (moment: Timestamp, milliseconds: Int64) -> Timestamp {
        Timestamp(rawValue: moment.rawValue &+ milliseconds)
    }

    /// Milliseconds from `earlier` to this moment.
    public func milliseconds(since earlier: Timestamp) -> Int64 { rawValue &- earlier.rawValue }

    public var description: String { "\(rawValue) ms" }
}

extension Duration {
    /// The duration in whole milliseconds, rounded toward zero.
    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
