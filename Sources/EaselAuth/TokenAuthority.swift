import Crypto
import EaselProtocol
import EaselSync
import Foundation

/// Issues and checks access tokens: `easel1.<claims>.<signature>`, the
/// claims as base64url JSON, the signature HMAC-SHA256 of everything before
/// it under the server's secret (Docs/SECURITY.md).
///
/// A token is a bearer credential: whoever holds it is its user until it
/// expires. Keep lifetimes short and the secret out of command lines that
/// others can read (`EASEL_SECRET`).
public struct TokenAuthority: Sendable {
    private let key: SymmetricKey

    /// The shortest secret accepted: a guessable secret lets anyone sign.
    public static let minimumSecretBytes = 16
    static let prefix = "easel1."

    public init(secret: String) throws(TokenError) {
        let bytes = Array(secret.utf8)
        guard bytes.count >= Self.minimumSecretBytes else {
            throw TokenError(
                "the secret has \(bytes.count) bytes; it needs at least \(Self.minimumSecretBytes) (try `openssl rand -hex 32`)"
            )
        }
        key = SymmetricKey(data: bytes)
    }

    /// A token granting `claims`, signed with the secret.
    public func issue(_ claims: AccessClaims) throws(TokenError) -> String {
        if case .prefix(let prefix) = claims.documents, !prefix.isEmpty, !prefix.hasSuffix("/") {
            throw TokenError(
                "a document prefix ends with / (\(prefix)/), so it covers one folder rather than every name that starts alike"
            )
        }
        guard !claims.user.isEmpty, claims.user.utf8.count <= AccessClaims.userBytes else {
            throw TokenError("a user has 1 to \(AccessClaims.userBytes) bytes")
        }
        let payload = Self.prefix + Base64URL.encode(ClaimsCoding.encode(claims))
        let token =
            payload + "."
            + Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(payload.utf8), using: key)))
        guard token.utf8.count <= ProtocolLimits.tokenBytes else {
            throw TokenError(
                "the token would have \(token.utf8.count) bytes, over the protocol's \(ProtocolLimits.tokenBytes)")
        }
        return token
    }

    /// The claims of a token whose signature verifies, or why it is refused
    /// (error 300); expiry and document are the caller's to check.
    public func claims(of token: String) -> Result<AccessClaims, AuthenticationRefusal> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.hasPrefix(Self.prefix), let signature = Base64URL.decode(parts[2]) else {
            return .failure(AuthenticationRefusal(code: .unauthorized, message: "not an Easel access token"))
        }
        let signed = Array(token.utf8.dropLast(parts[2].utf8.count + 1))
        // The comparison takes the same time wherever the bytes differ.
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: key) else {
            return .failure(
                AuthenticationRefusal(
                    code: .unauthorized, message: "the token's signature does not verify (another secret, or altered)"))
        }
        guard let payload = Base64URL.decode(parts[1]), let claims = ClaimsCoding.decode(payload) else {
            return .failure(AuthenticationRefusal(code: .unauthorized, message: "the token's claims do not read"))
        }
        return .success(claims)
    }

    /// Who a hello comes from, by its token: refused when it is missing or
    /// does not verify (300), has expired (301) or does not cover the
    /// hello's document (302).
    public func authenticate(_ hello: Hello, at now: Timestamp) -> Result<ConnectionIdentity, AuthenticationRefusal> {
        guard let token = hello.token else {
            return .failure(
                AuthenticationRefusal(code: .unauthorized, message: "this server wants an access token in the hello"))
        }
        let claims: AccessClaims
        switch self.claims(of: token) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let verified): claims = verified
        }
        guard now.rawValue / 1000 < claims.expires else {
            return .failure(
                AuthenticationRefusal(
                    code: .tokenExpired, message: "the token expired at \(claims.expires) (seconds since 1970)"))
        }
        guard claims.documents.covers(hello.document) else {
            return .failure(
                AuthenticationRefusal(
                    code: .wrongDocument, message: "the token covers \(claims.documents), not \(hello.document)"))
        }
        let (expires, overflow) = claims.expires.multipliedReportingOverflow(by: 1000)
        return .success(
            ConnectionIdentity(
                user: claims.user, role: claims.role, expires: overflow ? nil : Timestamp(milliseconds: expires)))
    }

    /// The authenticator a `SyncServer` calls for each hello.
    public var authenticator: Authenticator {
        { hello, now in self.authenticate(hello, at: now) }
    }
}

/// Why a token could not be made.
public struct TokenError: Error, CustomStringConvertible, Sendable {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
