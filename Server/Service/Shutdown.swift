import EaselProtocol
import EaselSync

/// The stop sequence's state: once a stop is asked for, new connections
/// are refused and `/healthz` answers 503; after `drainMilliseconds` (0 for
/// a lone server; a node gives the router time to stop sending it clients)
/// every connection is told and closed, and the loop ends when all are
/// gone or `closeWaitMilliseconds` have passed.
struct Shutdown {
    private(set) var startedAt: Timestamp?
    /// When the connections were told to go.
    private(set) var closedAt: Timestamp?
    private(set) var isFinished = false
    /// How long a node stays up, refusing newcomers, before it closes its
    /// connections: the router's health checks notice in that time.
    var drainMilliseconds: Int64 = 0
    /// How long close frames get to go out.
    static let closeWaitMilliseconds: Int64 = 2_000

    var isStopping: Bool { startedAt != nil }

    /// Starts the sequence; false when it had started already.
    mutating func begin(at now: Timestamp) -> Bool {
        guard startedAt == nil else { return false }
        startedAt = now
        return true
    }

    /// Whether the connections are to be closed now (once).
    mutating func closingIsDue(at now: Timestamp) -> Bool {
        guard let startedAt, closedAt == nil, now.milliseconds(since: startedAt) >= drainMilliseconds else {
            return false
        }
        closedAt = now
        return true
    }

    mutating func note(openConnections: Int, at now: Timestamp) {
        guard let closedAt else { return }
        if openConnections == 0 || now.milliseconds(since: closedAt) > Self.closeWaitMilliseconds {
            isFinished = true
        }
    }
}

extension ServiceHost {
    /// A stop was asked for. A lone server closes every connection now; a
    /// node of several first drains (`drainMilliseconds`, `onDrain`).
    func stopServing(at now: Timestamp) {
        guard shutdown.begin(at: now) else { return }
        log.logger.info(
            "stopping: closing every connection",
            metadata: ["connections": "\(connections.count)", "drain_ms": "\(shutdown.drainMilliseconds)"])
        onDrain?()
        closeEveryoneIfDue(at: now)
    }

    /// Once the drain is over: every connection gets error 502 (shutting
    /// down) and close 1001 from a lone server, or error 503 (moved, to no
    /// node) and close 4007 from a node, whose clients reconnect through
    /// the router to the node that takes the document over.
    func closeEveryoneIfDue(at now: Timestamp) {
        guard shutdown.closingIsDue(at: now) else { return }
        // Acks of commits that came in this callback go out before the close.
        carryOutOutputs()
        let moving = onDrain != nil
        for connection in connections.values {
            let error =
                moving
                ? ErrorMessage(code: .moved, fatal: true, message: "moved")
                : ErrorMessage(code: .shuttingDown, fatal: true, message: "the server is shutting down")
            send(.error(error), to: [connection.id])
            connection.close(moving ? .moved : .goingAway)
        }
    }
}
