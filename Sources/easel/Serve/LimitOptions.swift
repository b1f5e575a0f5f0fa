import ArgumentParser
import EaselSync

/// `easel serve`'s limit flags; each default is `ServerLimits`' own.
struct LimitOptions: ParsableArguments {
    private static let defaults = ServerLimits()

    @Option(help: "The longest message a client may send, in bytes (at most 1048576).")
    var maxMessageBytes = defaults.messageBytes

    @Option(help: "The most ops in one push (at most 4096).")
    var maxOpsPerPush = defaults.opsPerPush

    @Option(help: "Pushes a connection may send a second (bursts of twice that).")
    var maxPushesPerSecond = defaults.pushesPerSecond

    @Option(help: "Presence messages a connection may send a second (at most 20).")
    var maxPresencePerSecond = defaults.presencePerSecond

    @Option(help: "Other messages (pings, pongs) a connection may send a second.")
    var maxOtherMessagesPerSecond = defaults.otherMessagesPerSecond

    @Option(help: "Refused messages a connection may send in a burst before it is closed (one forgiven a second).")
    var maxRefusedMessages = defaults.refusedMessageAllowance

    @Option(help: "Joined connections on the whole server.")
    var maxConnections = defaults.connections

    @Option(help: "Connections that have not said hello yet (each gets 10 s).")
    var maxPendingHellos = defaults.connectionsAwaitingHello

    @Option(help: "Connections on one document.")
    var maxConnectionsPerRoom = defaults.connectionsPerRoom

    @Option(help: "Documents held in memory at once (idle ones are unloaded to make room).")
    var maxRooms = defaults.rooms

    @Option(help: "Bytes queued for a connection that does not read before it is closed (a big welcome's shared content aside).")
    var maxQueuedBytes = defaults.queuedBytes

    @Option(help: "Milliseconds a joiner has to take its welcome, plus a second per --welcome-bytes-per-second of it.")
    var welcomeMilliseconds = defaults.welcomeMilliseconds

    @Option(help: "The slowest link a welcome's deadline allows for, in bytes a second.")
    var welcomeBytesPerSecond = defaults.welcomeBytesPerSecond

    @Option(help: "Accepted ops a document may have waiting for storage before pushes are refused for now.")
    var maxPendingOps = defaults.pendingOpsPerRoom

    @Option(help: "Entities one document may hold, deleted ones included (pushes that create more are refused).")
    var maxDocumentEntities = defaults.entitiesPerDocument

    @Option(help: "Bytes of content one document may hold, counted from its ops (Docs/SECURITY.md).")
    var maxDocumentBytes = defaults.contentBytesPerDocument

    @Option(help: "Milliseconds a joined connection may send nothing before it is closed (clients ping every 5 s).")
    var silenceTimeoutMs = ServerConfiguration().silenceTimeout

    var serverLimits: ServerLimits {
        var limits = ServerLimits()
        limits.messageBytes = maxMessageBytes
        limits.opsPerPush = maxOpsPerPush
        limits.pushesPerSecond = maxPushesPerSecond
        limits.presencePerSecond = maxPresencePerSecond
        limits.refusedMessageAllowance = maxRefusedMessages
        limits.connections = maxConnections
        limits.connectionsAwaitingHello = maxPendingHellos
        limits.otherMessagesPerSecond = maxOtherMessagesPerSecond
        limits.pendingOpsPerRoom = maxPendingOps
        limits.entitiesPerDocument = maxDocumentEntities
        limits.contentBytesPerDocument = maxDocumentBytes
        limits.connectionsPerRoom = maxConnectionsPerRoom
        limits.rooms = maxRooms
        limits.queuedBytes = maxQueuedBytes
        limits.welcomeMilliseconds = welcomeMilliseconds
        limits.welcomeBytesPerSecond = welcomeBytesPerSecond
        return limits
    }

    func validate() throws {
        if let problem = serverLimits.problems.first { throw ValidationError(problem) }
        // Above the clients' ping interval with room for a slow round trip.
        guard (10_000...3_600_000).contains(silenceTimeoutMs) else {
            throw ValidationError("--silence-timeout-ms must be from 10000 to 3600000")
        }
    }
}
