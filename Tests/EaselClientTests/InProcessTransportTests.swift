import EaselClient
import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

@Suite("In-process transport")
struct InProcessTransportTests {
    func session(_ replica: ReplicaID, on server: InProcessServer, encoding: WireEncoding) throws -> DocumentSession {
        let engine = SyncClient(
            document: try DocumentName("local/board"), user: UserInfo(name: "\(replica)", initials: "R", color: .black),
            replica: replica, configuration: SyncClientConfiguration(encoding: encoding), at: Timestamp(milliseconds: 0)
        )
        let session = DocumentSession(engine: engine) { encoding in server.transport(encoding: encoding) }
        session.start()
        return session
    }

    @Test func sessionsOnTheInProcessTransportCollaborateAsOverSocketsWithoutAPort() throws {
        let server = InProcessServer()
        let alice = try session(ReplicaID(rawValue: 0xA1), on: server, encoding: .binary)
        let bob = try session(ReplicaID(rawValue: 0xB2), on: server, encoding: .json)
        defer {
            alice.stop()
            bob.stop()
        }
        for (index, session) in [alice, bob, alice].enumerated() {
            try session.edit {
                try $0.perform(
                    .place(.emoji("🌵", size: 30), at: Point(x: Float(index) * 40, y: 0)), at: Timestamp(milliseconds: 0)
                )
            }
        }
        for session in [alice, bob] {
            #expect(
                session.wait(timeout: .seconds(10)) {
                    $0.unacknowledged.isEmpty && $0.editor.document.visibleCount == 3
                })
        }
        #expect(alice.read { $0.editor.document.stateHash } == bob.read { $0.editor.document.stateHash })
        #expect(bob.read { $0.peers.keys.contains(ReplicaID(rawValue: 0xA1)) })
    }
}
