import EaselAuth
import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

@Suite struct TokenAuthorityTests {
    let authority: TokenAuthority
    let board: DocumentName
    /// 2026-01-01, in milliseconds.
    let now = Timestamp(milliseconds: 1_767_225_600_000)

    init() throws {
        authority = try TokenAuthority(secret: "correct horse battery staple")
        board = try DocumentName("team/board")
    }

    private func hello(_ document: DocumentName, token: String?) -> Hello {
        Hello(
            protocolVersion: 1, document: document, replica: ReplicaID(rawValue: 7), token: token,
            user: UserInfo(name: "shown name", initials: "S", color: Color(rawValue: 0x1122_33FF)))
    }

    private func token(
        user: String = "ada", _ documents: DocumentScope? = nil, role: ConnectionIdentity.Role = .edit,
        expiresIn seconds: Int64 = 3600
    ) throws -> String {
        try authority.issue(
            AccessClaims(
                user: user, documents: documents ?? .exactly(board), role: role,
                expires: now.rawValue / 1000 + seconds))
    }

    private func refusal(_ result: Result<ConnectionIdentity, AuthenticationRefusal>) -> ErrorCode? {
        if case .failure(let refusal) = result { return refusal.code }
        return nil
    }

    @Test func aTokenSignedWithTheSecretNamesItsUserAndRole() throws {
        let edit = authority.authenticate(hello(board, token: try token()), at: now)
        #expect(try edit.get().user == "ada")
        #expect(try edit.get().role == .edit)
        let view = authority.authenticate(hello(board, token: try token(user: "bob", role: .view)), at: now)
        #expect(try view.get().user == "bob")
        #expect(try view.get().role == .view)
    }

    @Test func aHelloWithoutATokenIsUnauthorized() {
        #expect(refusal(authority.authenticate(hello(board, token: nil), at: now)) == .unauthorized)
    }

    @Test func aTokenSignedWithAnotherSecretIsUnauthorized() throws {
        let other = try TokenAuthority(secret: "another secret, just as long")
        let forged = try other.issue(
            AccessClaims(user: "mallory", documents: .prefix(""), role: .edit, expires: now.rawValue / 1000 + 60))
        #expect(refusal(authority.authenticate(hello(board, token: forged), at: now)) == .unauthorized)
    }

    @Test func claimsRewrittenWithoutTheSecretAreUnauthorized() throws {
        let genuine = try token(role: .view)
        let parts = genuine.split(separator: ".")
        // Mallory swaps in claims of her own making and keeps the signature.
        let upgraded = try token(role: .edit).split(separator: ".")[1]
        let forged = [parts[0], upgraded, parts[2]].joined(separator: ".")
        #expect(refusal(authority.authenticate(hello(board, token: forged), at: now)) == .unauthorized)
    }

    @Test func anyAlteredCharacterOfATokenMakesItUnauthorized() throws {
        let genuine = Array(try token())
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        for seed in propertySeeds(count: 200, label: "altered token") {
            var random = SeededRandom(seed: seed)
            var altered = genuine
            let index = Int.random(in: 0..<altered.count, using: &random)
            altered[index] = alphabet.filter { $0 != genuine[index] }.randomElement(using: &random) ?? "?"
            let result = authority.authenticate(hello(board, token: String(altered)), at: now)
            #expect(refusal(result) == .unauthorized, "seed \(seed): \(String(altered))")
        }
    }

    @Test func aSignatureSpelledDifferentlyButDecodingAlikeIsUnauthorized() throws {
        let genuine = try token()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try #require(genuine.last.flatMap { alphabet.firstIndex(of: $0) })
        // 32 bytes leave the last character's low four bits unused.
        let respelled = String(genuine.dropLast()) + String(alphabet[last ^ 1])
        #expect(refusal(authority.authenticate(hello(board, token: respelled), at: now)) == .unauthorized)
    }

    @Test func anIdentityCarriesItsTokensExpiryForTheServerToCloseItThen() throws {
        let identity = try authority.authenticate(hello(board, token: try token(expiresIn: 60)), at: now).get()
        #expect(identity.expires == Timestamp(milliseconds: (now.rawValue / 1000 + 60) * 1000))
    }

    @Test func anExpiredTokenIsRefusedAsExpired() throws {
        let expired = try token(expiresIn: -1)
        #expect(refusal(authority.authenticate(hello(board, token: expired), at: now)) == .tokenExpired)
        let endsNow = try token(expiresIn: 0)
        #expect(refusal(authority.authenticate(hello(board, token: endsNow), at: now)) == .tokenExpired)
    }

    @Test func aTokenForAnotherDocumentIsRefusedAsWrongDocument() throws {
        let other = try token(.exactly(DocumentName("team/other")))
        #expect(refusal(authority.authenticate(hello(board, token: other), at: now)) == .wrongDocument)
    }

    @Test func aFolderTokenCoversTheDocumentsInItsFolderAndNoOthers() throws {
        let folder = try token(.prefix("team/"))
        #expect(throws: Never.self) { try authority.authenticate(hello(board, token: folder), at: now).get() }
        let lookalike = try DocumentName("teammates/board")
        #expect(refusal(authority.authenticate(hello(lookalike, token: folder), at: now)) == .wrongDocument)
        #expect(throws: TokenError.self) { try token(.prefix("team")) }
    }

    @Test func aSecretShorterThanSixteenBytesIsRefused() {
        #expect(throws: TokenError.self) { try TokenAuthority(secret: "short") }
    }

    @Test func aTokenWithinTheProtocolsLengthLimitTravelsInAHello() throws {
        let token = try token()
        #expect(token.utf8.count <= ProtocolLimits.tokenBytes)
        let message = Message.hello(hello(board, token: token))
        for encoding in [WireEncoding.binary, .json] {
            let decoded = try Message(decoding: message.encoded(as: encoding), as: encoding)
            #expect(decoded == message)
        }
    }
}
