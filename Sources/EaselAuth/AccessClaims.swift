import EaselProtocol
import EaselSync

/// What a token grants: who the user is, which documents, in what role,
/// until when.
public struct AccessClaims: Hashable, Sendable {
    /// The user, as storage records each op's author. Not empty, at most
    /// `AccessClaims.userBytes` bytes.
    public var user: String
    public var documents: DocumentScope
    public var role: ConnectionIdentity.Role
    /// Seconds since 1970 after which the token is refused (error 301).
    public var expires: Int64

    public static let userBytes = 128

    public init(user: String, documents: DocumentScope, role: ConnectionIdentity.Role, expires: Int64) {
        self.user = user
        self.documents = documents
        self.role = role
        self.expires = expires
    }
}

/// The documents a token covers.
public enum DocumentScope: Hashable, Sendable, CustomStringConvertible {
    case exactly(DocumentName)
    /// Every document whose name starts with the prefix ("" for all).
    case prefix(String)

    public func covers(_ document: DocumentName) -> Bool {
        switch self {
        case .exactly(let name): name == document
        case .prefix(let prefix): document.rawValue.hasPrefix(prefix)
        }
    }

    public var description: String {
        switch self {
        case .exactly(let name): "the document \(name.rawValue)"
        case .prefix(let prefix): prefix.isEmpty ? "every document" : "documents starting with \(prefix)"
        }
    }
}
