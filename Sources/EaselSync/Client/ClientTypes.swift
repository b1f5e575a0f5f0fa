import EaselModel
import EaselProtocol

/// How a client engine behaves; the defaults follow Protocol/README.md.
public struct SyncClientConfiguration: Hashable, Sendable {
    /// The connection's encoding: pushes are cut to fit the message limit
    /// in it.
    public var encoding: WireEncoding = .binary
    /// Authentication token for the hello, when the server wants one.
    public var token: String?
    /// The most ops in one push, and the longest message: the protocol's
    /// limits unless the server documents lower ones.
    public var opsPerPush = ProtocolLimits.opsPerPush
    public var messageBytes = ProtocolLimits.messageBytes
    /// The shortest gap between two presence messages (20 a second).
    public var presenceInterval: Int64 = 1000 / Int64(ProtocolLimits.presencePerSecond)
    /// The shortest gap between two changes of the state shared in presence,
    /// once for every `stateRecordsPerInterval` records the document holds:
    /// hashing costs time in proportion to the document's size, on the
    /// thread that draws (in the page, tens of milliseconds at 50,000
    /// entities; once a second was a dropped frame a second).
    public var stateInterval: Int64 = 1_000
    public var stateRecordsPerInterval = 2_000
    /// Without interaction this long, presence says idle and goes quiet.
    public var idleAfter: Int64 = 10_000
    /// The longest a peer's ended gesture stays drawn while its ops are
    /// awaited (they come after a durable commit, presence at once).
    public var settlingGestureLimit: Int64 = 1_000
    /// How often to ping: measures the round trip and keeps the server's
    /// silence timeout (60 s) away.
    public var pingInterval: Int64 = 5_000
    /// A round trip (or an unanswered ping) longer than this makes the
    /// connection weak.
    public var weakRoundTrip: Int64 = 1_000
    /// A push unacknowledged for longer than this makes the connection weak.
    public var weakAckDelay: Int64 = 3_000
    /// With nothing at all heard for this long (the client pings every
    /// `pingInterval`, so a live server answers well within it), the
    /// connection is dead though its socket may look open (a half-open TCP
    /// connection, a NAT that forgot it): the engine asks to disconnect, so
    /// the transport reconnects. Each message of a long welcome counts as
    /// heard, so a slow link is not taken for a dead one.
    public var deadAfter: Int64 = 15_000

    public init(encoding: WireEncoding = .binary, token: String? = nil) {
        self.encoding = encoding
        self.token = token
    }
}

/// The connection as a UI shows it.
public enum ConnectionState: Hashable, Sendable, CustomStringConvertible {
    /// No connection; edits wait in the outbox.
    case offline
    /// Connected, waiting for the welcome.
    case connecting
    case connected
    /// Connected, but round trips or acknowledgements are late.
    case weak

    public var description: String {
        switch self {
        case .offline: "offline"
        case .connecting: "connecting"
        case .connected: "connected"
        case .weak: "weak"
        }
    }
}

/// What a client engine asks its transport to do.
public enum ClientOutput: Hashable, Sendable {
    case send(Message)
    /// Close the connection (a fatal error, or a refused push after which
    /// the engine needs a fresh snapshot); the transport then reconnects,
    /// or not, as its policy says.
    case disconnect(reason: String)
}

/// What happened to this client's edits, for a UI or a test to note.
public enum SyncEvent: Hashable, Sendable {
    /// These ops are durable on the server.
    case acknowledged([OpID])
    /// The server refused a push; its ops are dropped, and the document is
    /// rebuilt from a fresh snapshot on the next connection.
    case refused(ErrorMessage, [Op])
    /// An image's upload failed for good (`SyncClient.blobFailed`): the ops
    /// that placed it never reached the server, and the document is
    /// rebuilt without them from a fresh snapshot.
    case placeFailed(BlobHash, reason: String, dropped: [Op])
    /// The server sent an error not about a push.
    case serverError(ErrorMessage)
}
