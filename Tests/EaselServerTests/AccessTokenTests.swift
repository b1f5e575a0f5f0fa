import EaselAuth
import EaselClient
import EaselClientLWS
import EaselModel
import EaselProtocol
import EaselStore
import EaselSync
import EaselTestSupport
import Foundation
import Testing

/// `easel serve --secret`: tokens from `easel token`, checked on every
/// hello, over real sockets.
///
/// Every server a test starts logs at debug level; when the test ends, its
/// log must hold neither the secret nor any token the test made.
@Suite("easel serve with access tokens", .serialized)
final class AccessTokenTests {
    static let secret = "a secret for the token tests, long enough"
    private var servers: [ServerProcess] = []
    private var tokens: [String] = []

    deinit {
        for server in servers {
            let log = server.log
            #expect(!log.isEmpty, "the server logged")
            #expect(!log.contains(Self.secret), "the secret in the log")
            for token in tokens { #expect(!log.contains(token), "a token in the log") }
        }
    }

    func secured(_ database: String = temporaryDatabase(), host: String = "127.0.0.1") throws -> ServerProcess {
        let server = try ServerProcess(
            database: database, arguments: ["--host", host], environment: ["EASEL_SECRET": Self.secret])
        servers.append(server)
        return server
    }

    /// A token printed by `easel token`, as an operator would make one.
    func token(user: String, doc: String, role: String, secret: String = AccessTokenTests.secret) throws -> String {
        let (status, printed, errors) = try runEasel([
            "token", "--secret", secret, "--user", user, "--doc", doc, "--role", role, "--ttl", "1h",
        ])
        guard status == 0 else { throw ServerProcessError("easel token failed: \(errors)") }
        let token = printed.trimmingCharacters(in: .whitespacesAndNewlines)
        tokens.append(token)
        return token
    }

    /// A token made here, remembered like `token`'s.
    func issued(_ claims: AccessClaims) throws -> String {
        let token = try TokenAuthority(secret: Self.secret).issue(claims)
        tokens.append(token)
        return token
    }

    func helloAs(_ server: ServerProcess, _ doc: String, replica: String, token: String?) throws -> [String: Any] {
        try OutsideClient.run(["\(server.port)", "hello-as", doc, replica, token ?? "-"])
    }

    @Test func withASecretTheServerListensBeyondLoopbackAndAdmitsOnlyHellosWithAValidToken() throws {
        let server = try secured(host: "0.0.0.0")
        defer { server.kill() }
        let edit = try helloAs(
            server, "secure/doc", replica: "0000000000000001",
            token: token(user: "ada", doc: "secure/doc", role: "edit"))
        #expect((edit["push"] as? [String: Any])?["type"] as? String == "ack")

        let expired = try issued(
            AccessClaims(
                user: "ada", documents: .exactly(DocumentName("secure/doc")), role: .edit,
                expires: Int64(Date().timeIntervalSince1970) - 1))
        let refusals: [(token: String?, code: Int)] = [
            (nil, 300),
            (try token(user: "ada", doc: "secure/doc", role: "edit", secret: "another secret, as long as it"), 300),
            ("easel1.not.a-token", 300),
            (expired, 301),
            (try token(user: "ada", doc: "secure/elsewhere", role: "edit"), 302),
        ]
        for (token, code) in refusals {
            let answer = try helloAs(server, "secure/doc", replica: "0000000000000002", token: token)
            #expect(answer["refused"] as? Int == code, "\(answer)")
            #expect(answer["fatal"] as? Bool == true)
            #expect(answer["close"] as? Int == 1008)
        }
    }

    @Test func aViewTokenReceivesEverythingButItsPushesAreRefusedAsReadOnly() throws {
        let server = try secured()
        defer { server.kill() }
        let refused = try helloAs(
            server, "secure/view", replica: "0000000000000003",
            token: token(user: "vic", doc: "secure/view", role: "view"))
        #expect((refused["push"] as? [String: Any])?["code"] as? Int == 303)

        let loop = try ClientLoop()
        defer { loop.shutdown() }
        let editor = try session("ada", replica: 0xA1, role: "edit", server: server, loop: loop)
        let viewer = try session("vic", replica: 0xB2, role: "view", server: server, loop: loop)
        defer {
            editor.stop()
            viewer.stop()
        }
        for index in 0..<3 {
            try editor.edit {
                try $0.perform(.place(.emoji("🍋", size: 30), at: Point(x: Float(index), y: 0)), at: .zero)
            }
        }
        #expect(viewer.wait(timeout: .seconds(15)) { $0.editor.document.visibleCount == 3 })
        try viewer.edit { try $0.perform(.place(.emoji("🚫", size: 30), at: Point(x: 9, y: 9)), at: .zero) }
        #expect(viewer.wait(timeout: .seconds(15)) { $0.lastError?.code == .readOnly })
        // The refused edit leaves the viewer's copy, and never reached the editor.
        #expect(
            viewer.wait(timeout: .seconds(15)) { $0.editor.document.visibleCount == 3 && $0.unacknowledged.isEmpty })
        #expect(editor.read { $0.editor.document.visibleCount } == 3)
    }

    @Test func aClientRefusedForAnExpiredTokenGetsInWithARefreshedOneOnItsNextReconnect() throws {
        let server = try secured()
        defer { server.kill() }
        let loop = try ClientLoop()
        defer { loop.shutdown() }
        let expired = try issued(
            AccessClaims(
                user: "ada", documents: .exactly(DocumentName("secure/view")), role: .edit,
                expires: Int64(Date().timeIntervalSince1970) - 1))
        let client = try session("ada", replica: 0xC3, role: "edit", server: server, loop: loop, token: expired)
        defer { client.stop() }
        #expect(client.wait(timeout: .seconds(15)) { $0.lastError?.code == .tokenExpired })
        let fresh = try token(user: "ada", doc: "secure/view", role: "edit")
        client.edit { $0.configuration.token = fresh }
        #expect(client.wait(timeout: .seconds(30)) { $0.connectionState == .connected })
    }

    @Test func theAuthorStorageRecordsIsTheTokensUserNotTheNameInTheHello() throws {
        let database = temporaryDatabase()
        let server = try secured(database)
        let answer = try helloAs(
            server, "secure/author", replica: "0000000000000004",
            token: token(user: "ada", doc: "secure/author", role: "edit"))
        #expect((answer["push"] as? [String: Any])?["type"] as? String == "ack")
        #expect(server.terminate().status == 0)
        let store = try OpStore(path: database)
        let ops = try store.ops(of: "secure/author", after: 0)
        #expect(ops.map(\.author) == ["ada"])
    }

    @Test func identityRulesHoldThroughTheServerAndOnlyTheSameUserTakesOverAReplica() throws {
        let server = try secured()
        defer { server.kill() }
        let ada = try token(user: "ada", doc: "secure/identity", role: "edit")
        let bob = try token(user: "bob", doc: "secure/identity", role: "edit")
        let report = try OutsideClient.run(["\(server.port)", "identity", "secure/identity", ada, bob])
        #expect(report["first_push"] as? String == "ack")
        #expect(report["wrong_replica"] as? Int == 203)
        #expect(report["op_conflict"] as? Int == 204)
        #expect(report["resend_same"] as? String == "ack")
        #expect(report["counter_too_far"] as? Int == 205)
        // Bob gives Ada's name in his hello: the token says who he is.
        let hijack = report["hijack"] as? [String: Any]
        #expect(hijack?["code"] as? Int == 304)
        #expect(hijack?["close"] as? Int == 1008)
        #expect(report["first_still_works"] as? String == "ack")
        #expect(report["takeover_closes_stale"] as? Int == 4003)
        #expect(report["takeover_push"] as? String == "ack")
    }

    func session(
        _ user: String, replica: UInt64, role: String, server: ServerProcess, loop: ClientLoop,
        token given: String? = nil
    ) throws -> DocumentSession {
        let document = "secure/view"
        let engine = SyncClient(
            document: try DocumentName(document),
            user: UserInfo(name: user, initials: String(user.prefix(1)), color: .black),
            replica: ReplicaID(rawValue: replica),
            configuration: SyncClientConfiguration(token: try given ?? token(user: user, doc: document, role: role)),
            at: .zero)
        let session = try DocumentSession(engine: engine, url: "ws://127.0.0.1:\(server.port)", loop: loop)
        session.start()
        return session
    }
}

extension Timestamp {
    static let zero = Timestamp(milliseconds: 0)
}
