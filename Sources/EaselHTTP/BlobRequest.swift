import EaselModel
import Foundation
import EaselProtocol
import EaselSync

/// A request for `/blobs/<sha256 hex>?doc=<document>` (Protocol/README.md,
/// "Blobs over HTTP"), parsed and authorized, or the answer that refuses it.
package struct BlobRequest {
    package enum Method {
        case get, head, put
    }

    package var method: Method
    package var hash: BlobHash
    package var document: DocumentName

    package static let prefix = "/blobs/"

    /// Whether a path is one this parses (anything under `/blobs/`).
    package static func handles(_ path: String) -> Bool { path.hasPrefix(prefix) }

    package enum Parsed {
        case request(BlobRequest)
        case refused(HTTPResponse)
    }

    /// `method` is the shim's code: 1 GET, 2 HEAD, 3 PUT.
    package static func parse(path: String, method: Int32, document: String?) -> Parsed {
        let parsedMethod: Method
        switch method {
        case 1: parsedMethod = .get
        case 2: parsedMethod = .head
        case 3: parsedMethod = .put
        default:
            return .refused(
                .text(405, "a blob answers GET, HEAD and PUT\n", headers: [.init("allow", "GET, HEAD, PUT")]))
        }
        let name = path.dropFirst(prefix.count)
        guard name.count == 64, name.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let hash = BlobHash(hex: String(name))
        else {
            return .refused(.text(404, "a blob is named by the SHA-256 of its bytes: 64 lower-case hex digits\n"))
        }
        guard let document else { return .refused(.text(400, "name the document: ?doc=<document>\n")) }
        guard let documentName = try? DocumentName(document) else {
            return .refused(.text(400, "\(document.debugDescription) is not a document name\n"))
        }
        return .request(BlobRequest(method: parsedMethod, hash: hash, document: documentName))
    }

    /// Whether the bearer token lets this request through: the same
    /// authenticator as a hello's, with the same document. Uploading needs
    /// the edit role; reading either. nil when it may go ahead.
    package func refusal(bearer: String?, authenticate: Authenticator, at now: Timestamp) -> HTTPResponse? {
        let hello = Hello(
            document: document, replica: ReplicaID(rawValue: 1), token: bearer,
            user: UserInfo(name: "blob", initials: "B", color: .black))
        switch authenticate(hello, now) {
        case .failure(let refusal):
            let status: UInt32 = refusal.code == .wrongDocument ? 403 : 401
            let challenge: [HTTPResponse.Header] = status == 401 ? [.init("www-authenticate", "Bearer")] : []
            // The authenticator speaks of hellos; over HTTP a token is a header.
            let message =
                bearer == nil ? "this server wants an access token: Authorization: Bearer <token>" : refusal.message
            return .text(status, message + "\n", headers: challenge)
        case .success(let identity):
            guard method != .put || identity.role == .edit else {
                return .text(403, "a view token cannot upload\n")
            }
            return nil
        }
    }

    /// The token from an `Authorization: Bearer <token>` header.
    package static func bearer(from header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
