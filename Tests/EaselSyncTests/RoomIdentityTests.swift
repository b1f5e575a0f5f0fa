import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// What the host's authenticator decides, as the room applies it. The
/// tokens here are stand-ins: "user:role" (issue 8 brings real ones).
@Suite("Room: identity and roles")
struct RoomIdentityTests {
    typealias F = RoomFixtures

    static let authenticate: Authenticator = { hello, _ in
        let parts = (hello.token ?? "").split(separator: ":").map(String.init)
        guard parts.count == 2, let role = ["edit": ConnectionIdentity.Role.edit, "view": .view][parts[1]] else {
            return .failure(AuthenticationRefusal(code: .unauthorized, message: "no valid token"))
        }
        return .success(ConnectionIdentity(user: parts[0], role: role))
    }

    func harness() throws -> ServerHarness {
        try ServerHarness(authenticate: Self.authenticate)
    }

    func join(_ harness: ServerHarness, _ replica: ReplicaID, token: String?, name: String = "someone") -> (
        ConnectionID, Transcript
    ) {
        let connection = harness.connect()
        let hello = Hello(document: harness.document, replica: replica, token: token, user: ServerHarness.user(name))
        return (connection, harness.send(.hello(hello), from: connection))
    }

    @Test func aHelloTheAuthenticatorRefusesGetsItsCodeAndIsClosed() throws {
        let harness = try harness()
        let (connection, transcript) = join(harness, alice, token: "garbage")
        #expect(transcript.errors(to: connection).map(\.code) == [.unauthorized])
        #expect(transcript.closes(of: connection) == [.refused])
        #expect(transcript.welcome(to: connection) == nil)
    }

    @Test func aViewConnectionReceivesEverythingButCannotPush() throws {
        let harness = try harness()
        let (editor, _) = join(harness, alice, token: "alice:edit")
        let (viewer, _) = join(harness, bob, token: "bob:view")
        let refused = harness.push([op(1, bob, .create(.emoji, [.character("👀")]))], batch: 4, from: viewer)
        #expect(refused.errors(to: viewer).map(\.code) == [.readOnly])
        #expect(refused.errors(to: viewer).map(\.batch) == [4])
        #expect(refused.appended.isEmpty)
        let committed = harness.pushCommitted([F.createStar()], from: editor)
        #expect(committed.messages(to: viewer) == [.ops([PositionedOp(position: 1, op: F.createStar())])])
    }

    @Test func storageRecordsTheAuthenticatedUserAsTheAuthorNotTheNameTheClientGave() throws {
        let harness = try harness()
        let (connection, _) = join(harness, alice, token: "alice:edit", name: "The Queen")
        #expect(harness.push([F.createStar()], from: connection).appended.map(\.author) == ["alice"])
    }

    @Test func aReplicaIsTakenOverOnlyByTheSameAuthenticatedUserWhateverNameItGives() throws {
        let harness = try harness()
        let (owner, _) = join(harness, alice, token: "alice:edit", name: "Alice")
        let (intruder, refused) = join(harness, alice, token: "mallory:edit", name: "Alice")
        #expect(refused.errors(to: intruder).map(\.code) == [.replicaInUse])
        #expect(refused.closes(of: owner).isEmpty)
        let (again, replaced) = join(harness, alice, token: "alice:edit", name: "Alice on her phone")
        #expect(replaced.closes(of: owner) == [.replaced])
        #expect(replaced.welcome(to: again) != nil)
    }

    @Test func activityBelowTheMessageLayerKeepsAConnectionFromBeingClosedAsSilent() throws {
        let harness = try harness()
        let (connection, _) = join(harness, alice, token: "alice:edit")
        for _ in 0..<4 {
            harness.advance(by: 20_000)
            harness.server.heard(connection, at: harness.now)
        }
        #expect(harness.advance(by: 20_000).closes(of: connection).isEmpty)
    }

    @Test func aWelcomeWithMorePeersThanFitInOneMessageGoesOutInPiecesWithinTheLimit() throws {
        let entities = (1...1_024).map { EntityID(opID(UInt64($0), carol)) }
        let peers = (1...60).map { index in
            Presence(
                replica: ReplicaID(rawValue: UInt64(index)), user: ServerHarness.user("peer\(index)"),
                selection: entities, gesture: .moving(entities, by: Vector(dx: 1, dy: 1)))
        }
        let welcome = Welcome(epoch: Epoch(rawValue: 1), position: 0, content: .snapshot([]), peers: peers)
        for encoding in WireEncoding.allCases {
            let frames = Message.welcome(welcome).wireFrames(as: encoding)
            #expect(frames.count > 1)
            #expect(frames.allSatisfy { $0.count <= ProtocolLimits.messageBytes })
            let pieces = try frames.map { try Message(decoding: $0, as: encoding) }
            let received = pieces.flatMap { message -> [Presence] in
                guard case .welcome(let piece) = message else { return [] }
                return piece.peers
            }
            #expect(received == peers)
        }
    }
}
