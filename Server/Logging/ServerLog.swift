import EaselProtocol
import EaselSync
import Logging

/// Every line the server writes for its operator, in one place: which
/// events, at what level, with which fields. No token, secret or op
/// content is ever among them: a connection is named by its number, a
/// refusal by its code, a document by its name.
///
/// Used on the service thread; `logger` is a value and may be copied to
/// other threads (storage completions log through it).
struct ServerLog {
    var logger: Logger
    private var refusals: RefusalBudget

    init(logger: Logger, refusals limit: RefusalLogLimit = RefusalLogLimit()) {
        self.logger = logger
        refusals = RefusalBudget(perWindow: limit.perWindow, windowMilliseconds: limit.windowMilliseconds)
    }

    func connectionOpened(_ connection: ConnectionID, peer: String, encoding: WireEncoding) {
        logger.info(
            "connection opened",
            metadata: ["connection": "\(connection)", "peer": "\(peer)", "encoding": "\(encoding.subprotocol)"])
    }

    func joined(_ connection: ConnectionID, _ document: DocumentName, user: String, role: ConnectionIdentity.Role) {
        logger.info(
            "connection joined",
            metadata: [
                "connection": "\(connection)", "document": "\(document)", "user": "\(user)",
                "role": "\(role == .edit ? "edit" : "view")",
            ])
    }

    /// `by`: who closed it, `server` or `peer`.
    func connectionClosed(
        _ connection: ConnectionID, code: CloseCode?, by closer: String, document: DocumentName?,
        role: ConnectionIdentity.Role?
    ) {
        var metadata: Logger.Metadata = [
            "connection": "\(connection)", "by": "\(closer)",
            "code": "\(code.map { String($0.rawValue) } ?? "none")", "reason": "\(CloseReason.text(of: code))",
        ]
        if let document { metadata["document"] = "\(document)" }
        if let role { metadata["role"] = "\(role == .edit ? "edit" : "view")" }
        logger.info("connection closed", metadata: metadata)
    }

    /// A refusal sent to a client: logged while its code has budget left in
    /// the window; the rest are counted, and said in one summary line when
    /// the window ends (`tick`).
    mutating func refused(_ connection: ConnectionID, _ code: ErrorCode, at now: Timestamp) {
        summarise(at: now)
        guard refusals.take(code, at: now) else { return }
        logger.notice(
            "refused", metadata: ["connection": "\(connection)", "code": "\(code.rawValue)", "error": "\(code)"])
    }

    /// Says how many refusals went unlogged once their window is over.
    mutating func summarise(at now: Timestamp) {
        guard let suppressed = refusals.closeWindow(at: now) else { return }
        var metadata: Logger.Metadata = ["suppressed": "\(suppressed.values.reduce(0, +))"]
        for (code, count) in suppressed { metadata["code_\(code.rawValue)"] = "\(count)" }
        logger.warning("refusals not logged (too many in the window)", metadata: metadata)
    }

    func event(_ event: ServerEvent) {
        switch event {
        case .joining(let connection, let document, let user, let role):
            joined(connection, document, user: user, role: role)
        case .roomLoaded(let document, let head, let entities):
            logger.info(
                "room loaded", metadata: ["document": "\(document)", "head": "\(head)", "entities": "\(entities)"])
        case .roomUnloaded(let document, let head):
            logger.info("room unloaded", metadata: ["document": "\(document)", "head": "\(head)"])
        case .roomFailed(let document, let failure):
            if case .moved(let node) = failure.kind {
                // Not a fault: another node serves it (StorageHealth said which).
                logger.info(
                    "room closed: the document moved",
                    metadata: ["document": "\(document)", "node": "\(node ?? "none")"])
                return
            }
            logger.error(
                "room closed: storage failed",
                metadata: ["document": "\(document)", "incident": "\(failure.incident ?? "none")"])
        }
    }
}

/// How many refusals of one code are logged in a window: a flood of bad
/// messages costs the log a few lines and a summary.
public struct RefusalLogLimit: Sendable {
    public var perWindow = 10
    public var windowMilliseconds: Int64 = 10_000

    public init() {}
}

/// How many refusals of each code a window lets into the log.
struct RefusalBudget {
    let perWindow: Int
    let windowMilliseconds: Int64
    private var windowStart: Timestamp?
    private var logged: [ErrorCode: Int] = [:]
    private var suppressed: [ErrorCode: Int] = [:]

    init(perWindow: Int, windowMilliseconds: Int64) {
        self.perWindow = perWindow
        self.windowMilliseconds = windowMilliseconds
    }

    /// Whether this refusal may be logged; counts it either way.
    mutating func take(_ code: ErrorCode, at now: Timestamp) -> Bool {
        if windowStart == nil { windowStart = now }
        let count = logged[code, default: 0]
        guard count < perWindow else {
            suppressed[code, default: 0] += 1
            return false
        }
        logged[code] = count + 1
        return true
    }

    /// The window's suppressed counts when it is over (nil before then, or
    /// when nothing was suppressed), and a fresh window.
    mutating func closeWindow(at now: Timestamp) -> [ErrorCode: Int]? {
        guard let start = windowStart, now.milliseconds(since: start) >= windowMilliseconds || now < start else {
            return nil
        }
        let over = suppressed
        windowStart = nil
        logged = [:]
        suppressed = [:]
        return over.isEmpty ? nil : over
    }
}

/// What a close code means, in a few words, for the log.
enum CloseReason {
    static func text(of code: CloseCode?) -> String {
        guard let code else { return "connection lost without a close frame" }
        switch code {
        case .normal: return "normal"
        case .goingAway: return "going away"
        case .protocolViolation: return "protocol violation"
        case .wrongFrameKind: return "wrong frame kind"
        case .refused: return "refused (authentication)"
        case .messageTooBig: return "message too big"
        case .internalError: return "internal error"
        case .tryAgainLater: return "try again later (server full)"
        case .fatalError: return "fatal protocol error"
        case .tooManyInvalid: return "too many invalid messages"
        case .tooSlow: return "read too slowly"
        case .replaced: return "replica taken over by another connection"
        case .noHello: return "no hello in time"
        case .storageFailed: return "storage failed"
        case .silent: return "silent too long"
        default: return "code \(code.rawValue)"
        }
    }
}
