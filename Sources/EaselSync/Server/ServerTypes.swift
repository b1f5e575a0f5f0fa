import EaselModel
import EaselProtocol

/// A connection as the host numbers it; unique for the host's lifetime.
public struct ConnectionID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "c\(rawValue)" }
}

/// Names one storage request, so its completion finds its way back: the
/// room that made it (every room the server ever held has its own number)
/// and the request's place in that room's sequence.
public struct StorageTicket: Hashable, Sendable, CustomStringConvertible {
    public var room: UInt64
    public var sequence: UInt64

    public init(room: UInt64, sequence: UInt64) {
        self.room = room
        self.sequence = sequence
    }

    public var description: String { "t\(room).\(sequence)" }
}

/// What the sans-IO server asks its host to do, in order.
public enum ServerOutput: Hashable, Sendable {
    /// Send one message to each connection listed (the same bytes for all,
    /// so a host encodes it once).
    case send(Message, to: [ConnectionID])
    /// Close a connection with a WebSocket close code, after the messages
    /// sent to it before.
    case close(ConnectionID, CloseCode)
    /// Load a document's committed history; answer with `loaded`.
    case load(DocumentName)
    /// Load a document's committed history only if it was ever stored,
    /// creating nothing; answer with `warmed`.
    case warm(DocumentName)
    /// Make ops durable; answer with `stored` once they are (or failed).
    case append([LoggedOp], to: DocumentName, ticket: StorageTicket)
    /// A room emptied and everything it accepted is committed: the host may
    /// snapshot the document and forget it.
    case unloaded(DocumentName, head: UInt64)
}

/// What happened in the server that an operator may want to read: the
/// host writes these to its log (`SyncServer.takeEvents()`). Nothing here
/// carries a token or an op.
public enum ServerEvent: Hashable, Sendable {
    /// A connection's hello checked out: it joins the document.
    case joining(ConnectionID, DocumentName, user: String, role: ConnectionIdentity.Role)
    /// A room's history loaded: its log's head and how many entities show.
    case roomLoaded(DocumentName, head: UInt64, entities: Int)
    /// A room emptied and unloaded at its log's head.
    case roomUnloaded(DocumentName, head: UInt64)
    /// Storage failed a room, which closed its connections.
    case roomFailed(DocumentName, StorageFailure)
}

/// Who a connection is, once its hello checked out.
public struct ConnectionIdentity: Hashable, Sendable {
    public enum Role: Hashable, Sendable {
        /// May push ops.
        case edit
        /// Receives everything and may share presence, but never pushes.
        case view
    }

    /// The authenticated user: what a replica is bound to and what storage
    /// records as each op's author. Nil when the server runs without
    /// authentication; the hello's user name stands in, unverified.
    public var user: String?
    public var role: Role
    /// When the credential runs out: the connection is closed then (error
    /// 301, close 1008). Nil for one that never does.
    public var expires: Timestamp?

    public init(user: String?, role: Role, expires: Timestamp? = nil) {
        self.user = user
        self.role = role
        self.expires = expires
    }

    /// Everyone, when nobody authenticates.
    public static let anonymousEditor = ConnectionIdentity(user: nil, role: .edit)
}

/// Decides who a hello comes from, or refuses it.
public typealias Authenticator = @Sendable (Hello, Timestamp) -> Result<ConnectionIdentity, AuthenticationRefusal>

/// Why a hello was refused: an error code (3xx) and a message for people;
/// the server sends them, then closes the connection with 1008.
public struct AuthenticationRefusal: Error, Hashable, Sendable {
    public var code: ErrorCode
    public var message: String

    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }
}

/// How a server's rooms behave. The defaults are what Protocol/README.md
/// promises clients.
public struct ServerConfiguration: Hashable, Sendable {
    /// How far beyond the document's highest counter a pushed op's counter
    /// may reach (error 205). Wide enough for any offline session; narrow
    /// enough that nobody wins every last-writer race from then on.
    public var counterLead: UInt64 = 1 << 24
    /// Committed ops a room keeps in memory to answer resumes with a tail
    /// and to recognise resends; a client further behind gets a snapshot.
    public var retainedOps: Int = 100_000
    /// What clients may ask of the server: sizes, rates, connections, rooms.
    public var limits = ServerLimits()
    /// How long a connection may stay before its hello (close 4004).
    public var helloTimeout: Int64 = 10_000
    /// How long a joined connection may send nothing (close 4006): a client
    /// that vanished without closing leaves no ghost behind.
    public var silenceTimeout: Int64 = 60_000
    /// How long a room stays in memory after its last connection left and
    /// its last commit, so a reconnect within it resumes with a tail.
    public var unloadDelay: Int64 = 30_000
    /// Deliberate faults, for tests that prove they would notice them.
    public var faults = SyncFaults()

    public init() {}

    /// The shortest gap between two presence messages relayed for one
    /// connection; the latest one in between is kept.
    public var presenceInterval: Int64 { 1000 / Int64(limits.presencePerSecond) }
}

/// Faults a test can switch on to check that its checks catch them. Never
/// set outside tests.
public struct SyncFaults: Hashable, Sendable {
    /// Acknowledge and broadcast pushes as soon as they are accepted,
    /// before storage says they are durable: acknowledged ops can then be
    /// lost in a crash.
    public var acknowledgeBeforeCommit = false

    public init(acknowledgeBeforeCommit: Bool = false) {
        self.acknowledgeBeforeCommit = acknowledgeBeforeCommit
    }
}
