/// Why a blob transfer failed (Protocol/README.md, section 10), and whether
/// trying the same request again may help. Every client reads an answer's
/// status by this one table: the Swift clients, and the web page through
/// the WebAssembly module.
public enum BlobFailure: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The server does not have the blob for this document (404).
    case notFound = 1
    /// No valid token, or one that does not cover this (401, 403).
    case notAllowed = 2
    /// The server refused the request itself (400, 413, 415 and the rest).
    case refused = 3
    /// The bytes did not hash to the blob's name.
    case corrupt = 4
    /// The server was busy or failing (408, 429, 5xx), or unreachable.
    case unavailable = 5
    case cancelled = 6

    /// The failure an HTTP status means; nil for a success (2xx) or a
    /// not-modified (304). Status 0 stands for no answer at all.
    public init?(httpStatus status: Int) {
        switch status {
        case 200...299, 304: return nil
        case 0: self = .unavailable
        case 404: self = .notFound
        case 401, 403: self = .notAllowed
        case 408, 429, 500...: self = .unavailable
        default: self = .refused
        }
    }

    /// Worth another try: the server may recover, or the bytes arrive whole.
    public var isTransient: Bool { self == .unavailable || self == .corrupt }

    public var description: String {
        switch self {
        case .notFound: "notFound"
        case .notAllowed: "notAllowed"
        case .refused: "refused"
        case .corrupt: "corrupt"
        case .unavailable: "unavailable"
        case .cancelled: "cancelled"
        }
    }
}
