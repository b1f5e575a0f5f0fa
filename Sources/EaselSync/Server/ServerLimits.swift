import EaselProtocol

/// What one client, or all of them together, may ask of a server. The
/// defaults suit a server on the open internet; each is a flag of
/// `easel serve` and is listed in Docs/SECURITY.md.
///
/// Message bytes and ops per push may only be lowered below the protocol's
/// limits; a server that lowers them must say so, and its clients must be
/// configured to match (`SyncClientConfiguration`), or their pushes are
/// refused.
public struct ServerLimits: Hashable, Sendable {
    /// The longest message a client may send (error 109, close 1009).
    public var messageBytes = ProtocolLimits.messageBytes
    /// The most ops in one push (error 109; the push is refused).
    public var opsPerPush = ProtocolLimits.opsPerPush
    /// Pushes a connection may send a second, with bursts of twice that;
    /// a push beyond is refused with error 400 and sent again later.
    public var pushesPerSecond = 100
    /// Presence messages a connection may send a second, with bursts of
    /// twice that; the rest are dropped with error 400. Presence is relayed
    /// at most this often per connection, the latest one kept.
    public var presencePerSecond = ProtocolLimits.presencePerSecond
    /// Other messages (pings, pongs, errors) a connection may send a
    /// second, with bursts of twice that; the rest are dropped with 400.
    public var otherMessagesPerSecond = 5
    /// Refused messages (invalid, over a rate, not allowed) a connection may
    /// send in a burst before it is closed with 4001; one more is forgiven
    /// each second.
    public var refusedMessageAllowance = 16
    /// Connections on one document (error 401, close 1013).
    public var connectionsPerRoom = 1_000
    /// Joined connections on the whole server (error 402, close 1013).
    public var connections = 10_000
    /// Connections that have not said hello yet (error 402, close 1013):
    /// a separate, smaller pool, so sockets that never join cannot crowd
    /// out the ones that do. Each gets 10 s to say hello.
    public var connectionsAwaitingHello = 1_000
    /// Documents held in memory at once. Idle ones are unloaded to make
    /// room; when none is idle a hello for another document gets error 402
    /// and close 1013.
    public var rooms = 1_000
    /// Bytes queued for a connection that has stopped reading before it is
    /// closed with 4002. A welcome of its own (a small one, or a peer list)
    /// counts; a big welcome's content, encoded once and shared by every
    /// joiner that needs it, does not: `welcomeMilliseconds` bounds it.
    public var queuedBytes = 16 << 20
    /// Time a joiner has to take its whole welcome, before it is closed
    /// with 4002: this many milliseconds, plus one second for each
    /// `welcomeBytesPerSecond` bytes of the welcome, so a slow link still
    /// gets a big document while a joiner that never reads lets go of it.
    /// Counted from when the welcome is ready to write, not from the hello.
    public var welcomeMilliseconds = 30_000
    public var welcomeBytesPerSecond = 128 << 10
    /// Accepted ops a room may have waiting for storage; a push beyond is
    /// refused with 400 (sent again later), so a disk that falls behind
    /// slows writers down instead of filling memory.
    public var pendingOpsPerRoom = 100_000
    /// Entities one document may hold, deleted ones included (they can be
    /// restored): a push that would create more is refused with 213.
    public var entitiesPerDocument = 500_000
    /// Bytes of content one document may hold, as `DocumentContent` counts
    /// them from its ops: a push that would add more is refused with 213.
    /// Together with the entities they bound what an edit token can make a
    /// room hold and every joiner download.
    public var contentBytesPerDocument = 128 << 20

    public init() {}

    /// Each limit that is out of its range, as a sentence naming it; empty
    /// when all are fine.
    public var problems: [String] {
        var problems: [String] = []
        func check(_ name: String, _ value: Int, _ range: ClosedRange<Int>, _ why: String = "") {
            guard !range.contains(value) else { return }
            problems.append("\(name) is \(value); it must be \(range.lowerBound) to \(range.upperBound)\(why)")
        }
        let protocolLimit = " (the protocol's limit)"
        check("message bytes", messageBytes, 1024...ProtocolLimits.messageBytes, protocolLimit)
        check("ops per push", opsPerPush, 1...ProtocolLimits.opsPerPush, protocolLimit)
        check("pushes per second", pushesPerSecond, 1...Int(Int32.max))
        check("presence per second", presencePerSecond, 1...ProtocolLimits.presencePerSecond, protocolLimit)
        check("refused message allowance", refusedMessageAllowance, 1...Int(Int32.max))
        check("connections per room", connectionsPerRoom, 1...Int(Int32.max))
        check("connections", connections, 1...Int(Int32.max))
        check("connections awaiting hello", connectionsAwaitingHello, 1...Int(Int32.max))
        check("other messages per second", otherMessagesPerSecond, 1...Int(Int32.max))
        check("pending ops per room", pendingOpsPerRoom, ProtocolLimits.opsPerPush...Int(Int32.max))
        check("rooms", rooms, 1...Int(Int32.max))
        check("entities per document", entitiesPerDocument, 1...Int(Int32.max))
        check("content bytes per document", contentBytesPerDocument, 1024...Int.max)
        check("queued bytes", queuedBytes, 64 << 10...Int(Int32.max))
        check("welcome milliseconds", welcomeMilliseconds, 100...Int(Int32.max))
        check("welcome bytes per second", welcomeBytesPerSecond, 1024...Int(Int32.max))
        return problems
    }

    /// The milliseconds a joiner has to take a welcome of `bytes` bytes.
    public func welcomeMilliseconds(forBytes bytes: Int) -> Int64 {
        Int64(welcomeMilliseconds) + Int64(bytes) * 1000 / Int64(welcomeBytesPerSecond)
    }
}

/// A token bucket in integer arithmetic: `perSecond` tokens a second, at
/// most `burst` saved up. Tokens are kept in thousandths so a refill after
/// a millisecond is exact.
public struct RateBucket: Hashable, Sendable {
    private let perSecond: Int64
    private let capacity: Int64
    private var available: Int64
    private var updatedAt: Timestamp

    public init(perSecond: Int, burst: Int, at now: Timestamp) {
        self.perSecond = Int64(perSecond)
        capacity = Int64(burst) * 1000
        available = capacity
        updatedAt = now
    }

    /// Takes a token; false when none is left.
    public mutating func take(at now: Timestamp) -> Bool {
        let elapsed = max(0, now.milliseconds(since: updatedAt))
        updatedAt = max(updatedAt, now)
        let (refill, overflow) = elapsed.multipliedReportingOverflow(by: perSecond)
        available = overflow || refill >= capacity - available ? capacity : available + refill
        guard available >= 1000 else { return false }
        available -= 1000
        return true
    }
}
