import EaselProtocol
import EaselSync

/// The stop sequence's state: once a stop is asked for, every connection
/// is told and closed with 1001, and the loop ends when all are gone or
/// `closeWaitMilliseconds` have passed.
struct Shutdown {
    private(set) var startedAt: Timestamp?
    private(set) var isFinished = false
    /// How long close frames get to go out.
    static let closeWaitMilliseconds: Int64 = 2_000

    var isStopping: Bool { startedAt != nil }

    /// Starts the sequence; false when it had started already.
    mutating func begin(at now: Timestamp) -> Bool {
        guard startedAt == nil else { return false }
        startedAt = now
        return true
    }

    mutating func note(openConnections: Int, at now: Timestamp) {
        guard let startedAt else { return }
        if openConnections == 0 || now.milliseconds(since: startedAt) > Self.closeWaitMilliseconds {
            isFinished = true
        }
    }
}

extension ServiceHost {
    /// A stop was asked for: every connection gets error 500 (shutting
    /// down, fatal) and close 1001; the loop ends once they are gone.
    func stopServing(at now: Timestamp) {
        guard shutdown.begin(at: now) else { return }
        log.logger.info("stopping: closing every connection", metadata: ["connections": "\(connections.count)"])
        for connection in connections.values {
            send(
                .error(ErrorMessage(code: .shuttingDown, fatal: true, message: "the server is shutting down")),
                to: [connection.id])
            connection.close(.goingAway)
        }
    }
}
