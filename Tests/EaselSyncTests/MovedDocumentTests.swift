import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// Several nodes on one database: a room whose storage says another node
/// holds the document sends its clients there, and the path a connection
/// came by must name the document its hello names.
@Suite("Documents served by another node")
struct MovedDocumentTests {
    typealias F = RoomFixtures

    @Test(
        "a load refused because another node holds the document closes the joiner with 503 'moved to <node>' and 4007")
    func aLoadHeldElsewhereSendsTheJoinerThere() throws {
        let harness = try ServerHarness()
        harness.storage.failure = StorageFailure(.moved(to: "node2"), "node2 holds the lease")
        let (connection, transcript) = harness.join(alice, as: "alice")
        #expect(transcript.errors(to: connection).map(\.code) == [.moved])
        #expect(transcript.errors(to: connection).first?.message == "moved to node2")
        #expect(transcript.errors(to: connection).first?.fatal == true)
        #expect(transcript.closes(of: connection) == [.moved])
    }

    @Test(
        "a room whose lease was lost closes every client with 503 'moved', and the next hello loads the document again")
    func aLostLeaseClosesTheRoomAndTheNextHelloLoadsAgain() throws {
        let harness = try ServerHarness()
        let (first, _) = harness.join(alice, as: "alice")
        let (second, _) = harness.join(bob, as: "bob")
        harness.storage.failure = StorageFailure(.moved(to: nil), "the lease was taken")
        harness.push([F.createStar()], from: first)
        let transcript = harness.commit()
        for connection in [first, second] {
            #expect(transcript.errors(to: connection).map(\.message) == ["moved"])
            #expect(transcript.closes(of: connection) == [.moved])
        }
        harness.storage.failure = nil
        let (again, joined) = harness.join(carol, as: "carol")
        #expect(joined.welcome(to: again) != nil)
    }

    @Test(
        "a room handed over sends every client to the node with 503 'moved to <node>' and 4007, and unloads after its appends, which still commit: the next load has them"
    )
    func aHandedOverRoomSendsItsClientsAndUnloadsAfterItsAppends() throws {
        let harness = try ServerHarness()
        let (first, _) = harness.join(alice, as: "alice")
        let (second, _) = harness.join(bob, as: "bob")
        let pushed = harness.push([F.createStar()], from: first)
        #expect(pushed.outputs.contains { if case .append = $0 { true } else { false } })
        let handed = harness.handOver(to: "node3")
        for connection in [first, second] {
            #expect(handed.errors(to: connection).map(\.message) == ["moved to node3"])
            #expect(handed.closes(of: connection) == [.moved])
        }
        // After the append it follows: the storage releases the lease once that commits.
        #expect(handed.outputs.contains { if case .unloaded(harness.document, _) = $0 { true } else { false } })
        harness.commit()
        let (again, joined) = harness.join(carol, as: "carol")
        #expect(joined.welcome(to: again)?.position == 1, "the handed-over room's append was lost")
    }

    @Test("a hello naming the document of the connection's path joins; one naming another is refused with 305 and 1008")
    func theHelloMustNameThePathsDocument() throws {
        let harness = try ServerHarness()
        let same = harness.connect(path: harness.document)
        #expect(harness.send(harness.hello(alice, as: "alice"), from: same).welcome(to: same) != nil)
        let other = harness.connect(path: try DocumentName("boards/two"))
        let refused = harness.send(harness.hello(bob, as: "bob"), from: other)
        #expect(refused.errors(to: other).map(\.code) == [.pathMismatch])
        #expect(refused.closes(of: other) == [.refused])
        #expect(refused.welcome(to: other) == nil)
    }

    @Test(
        "a client told the document moved to a node asks for that node next; told it moved to no node, it lets the router choose"
    )
    func aClientFollowsTheNodeAMovedErrorNames() throws {
        var client = SyncClient(
            document: try DocumentName("boards/one"), user: ServerHarness.user("bob"), replica: bob,
            at: Timestamp(milliseconds: 0))
        client.connectionOpened(at: Timestamp(milliseconds: 0))
        client.receive(
            .error(ErrorMessage(code: .moved, fatal: true, message: "moved to node2")), at: Timestamp(milliseconds: 1))
        #expect(client.movedTo == "node2")
        #expect(client.takeOutputs().contains { if case .disconnect = $0 { true } else { false } })
        client.connectionClosed(at: Timestamp(milliseconds: 2))
        client.connectionOpened(at: Timestamp(milliseconds: 3))
        client.receive(
            .error(ErrorMessage(code: .moved, fatal: true, message: "moved")), at: Timestamp(milliseconds: 4))
        #expect(client.movedTo == nil)
    }
}
