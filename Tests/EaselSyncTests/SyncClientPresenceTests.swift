import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

@Suite("Client presence")
struct SyncClientPresenceTests {
    typealias F = RoomFixtures
    let start = Timestamp(milliseconds: 0)

    func connectedClient(snapshot: [Op] = [], peers: [Presence] = [], protocol version: UInt32 = WireProtocol.version)
        throws -> SyncClient
    {
        var client = SyncClient(
            document: try DocumentName("boards/one"), user: ServerHarness.user("bob"), replica: bob, at: start)
        client.connectionOpened(at: start)
        client.receive(
            .welcome(
                Welcome(
                    protocolVersion: version, epoch: Epoch(rawValue: 1), position: UInt64(snapshot.count),
                    content: .snapshot(snapshot), peers: peers)),
            at: start)
        _ = client.takeOutputs()
        return client
    }

    func sentPresence(_ client: inout SyncClient) -> [Presence] {
        client.takeOutputs().compactMap { if case .send(.presence(let presence)) = $0 { presence } else { nil } }
    }

    @Test func presenceIsSentWhenItChangesAndAtMostTwentyTimesASecond() throws {
        var client = try connectedClient()
        client.pointerMoved(to: Point(x: 1, y: 1), at: start + 10)
        client.pointerMoved(to: Point(x: 2, y: 2), at: start + 20)
        #expect(sentPresence(&client).isEmpty)
        client.tick(at: start + 50)
        #expect(sentPresence(&client).map(\.cursor) == [Point(x: 2, y: 2)])
        client.tick(at: start + 100)
        #expect(sentPresence(&client).isEmpty, "nothing changed, nothing sent")
    }

    @Test func presenceSaysIdleAfterTenSecondsWithoutInteractionGoesQuietAndResumesOnTheNext() throws {
        var client = try connectedClient()
        client.tick(at: start + 9_999)
        #expect(sentPresence(&client).isEmpty)
        client.tick(at: start + 10_000)
        #expect(sentPresence(&client).map(\.idle) == [true])
        for second in 11...30 { client.tick(at: start + Int64(second) * 1_000) }
        #expect(sentPresence(&client).isEmpty)
        client.pointerMoved(to: Point(x: 5, y: 5), at: start + 30_500)
        #expect(sentPresence(&client).map(\.idle) == [false])
    }

    @Test func peersAppearFromTheWelcomeAndTheirPresenceAndDisappearOnLeaveOrDisconnect() throws {
        let aliceHere = Presence(replica: alice, user: ServerHarness.user("alice"))
        var client = try connectedClient(peers: [aliceHere])
        #expect(client.peers == [alice: aliceHere])
        let carolHere = Presence(replica: carol, user: ServerHarness.user("carol"), cursor: Point(x: 1, y: 2))
        client.receive(.presence(carolHere), at: start)
        #expect(client.peers.count == 2)
        client.receive(.leave(alice), at: start)
        #expect(client.peers == [carol: carolHere])
        client.connectionClosed(at: start)
        #expect(client.peers.isEmpty, "a disconnected client shows no stale peers")
    }

    @Test func aGestureInFlightIsSharedAsAPreviewForPeers() throws {
        var client = try connectedClient(snapshot: [F.createStar()])
        try client.send(.tap(at: Point(x: 0, y: 0)), at: start + 100)
        try client.send(.dragBegan(at: Point(x: 0, y: 0)), at: start + 200)
        try client.send(.dragChanged(translation: Vector(dx: 30, dy: 40)), at: start + 300)
        #expect(sentPresence(&client).last?.gesture == .moving([F.star], by: Vector(dx: 30, dy: 40)))
        try client.send(.dragEnded(translation: Vector(dx: 30, dy: 40)), at: start + 400)
        #expect(sentPresence(&client).last.map { $0.gesture == nil } == true)

        try client.send(.drawBegan(DrawPoint(location: Point(x: 10, y: 10), time: 0)), at: start + 500)
        try client.send(.drawMoved([DrawPoint(location: Point(x: 20, y: 15), time: 0.1)]), at: start + 600)
        guard case .drawing(_, _, _, let points)? = sentPresence(&client).last?.gesture else {
            Issue.record("expected a drawing preview")
            return
        }
        #expect(points == [Point(x: 10, y: 10), Point(x: 20, y: 15)])
    }

    @Test func aClientSharesItsStateAtItsPositionOnlyWhileTheServerHasAcknowledgedEveryEdit() throws {
        var client = try connectedClient(snapshot: [F.createStar()])
        let atOne = PresenceState(position: 1, hash: client.editor.document.stateHash)
        #expect(client.stateAtPosition == atOne)
        #expect(client.presence(at: start).state == atOne, "shared from the welcome on")

        try client.perform(.place(.emoji("🦊", size: 40), at: Point(x: 5, y: 5)), at: start + 1_100)
        #expect(client.stateAtPosition == nil, "an unacknowledged edit: no longer a prefix of the log")
        guard case .send(.push(let push))? = client.takeOutputs().first(where: { if case .send(.push) = $0 { true } else { false } })
        else {
            Issue.record("expected a push")
            return
        }
        client.tick(at: start + 2_200)
        #expect(sentPresence(&client).allSatisfy { $0.state == atOne }, "what it shares stays true of position 1")

        client.receive(.ack(Ack(batch: push.batch, first: 2, count: UInt32(push.ops.count))), at: start + 2_300)
        let atTwo = try #require(client.stateAtPosition)
        #expect(atTwo == PresenceState(position: 2, hash: client.editor.document.stateHash))
        client.tick(at: start + 3_300)
        #expect(sentPresence(&client).last?.state == atTwo)
    }

    @Test func aClientTypingSharesItsCaretByCharacterAndOnlyWithAVersionFourServer() throws {
        for version: UInt32 in [3, 4] {
            var client = try connectedClient(protocol: version)
            try client.perform(.place(.text("Hi", font: "Georgia", size: 24), at: Point(x: 0, y: 0)), at: start + 10)
            let text = try #require(client.editor.document.entities.first?.id)
            try client.placeCaret(in: text, anchor: 2, head: 2, at: start + 100)
            try client.perform(.replaceText(text, range: 2..<2, with: ["!"]), at: start + 200)
            let shared = sentPresence(&client).last?.caret
            if version == 3 {
                #expect(shared == nil)
                continue
            }
            let typed = try #require(shared)
            #expect(typed.text == text && typed.anchor == typed.head)
            #expect(client.editor.document.textSequenceForEditing(of: text).position(of: typed.head) == 3)
            client.removeCaret(at: start + 300)
            #expect(sentPresence(&client).last.map { $0.caret == nil } == true)
        }
    }

    @Test func aNewStateIsSharedAtMostOncePerStateInterval() throws {
        var client = try connectedClient(snapshot: [F.createStar()])
        #expect(client.presence(at: start).state?.position == 1)
        client.receive(.ops([PositionedOp(position: 2, op: F.moveStar(2, to: 30))]), at: start + 20)
        client.tick(at: start + 500)
        #expect(sentPresence(&client).allSatisfy { $0.state?.position == 1 })
        client.tick(at: start + 1_010)
        #expect(sentPresence(&client).last?.state?.position == 2)
    }

    @Test func aBigDocumentsStateIsHashedOnceAGapForItsSizeAndNotInTheMomentOfItsWelcome() throws {
        var client = SyncClient(
            document: try DocumentName("boards/one"), user: ServerHarness.user("bob"), replica: bob, at: start)
        // Four records at two an interval: a gap of two intervals.
        client.configuration.stateRecordsPerInterval = 2
        client.connectionOpened(at: start)
        let stars = (1...4).map { F.createStar(UInt64($0)) }
        client.receive(
            .welcome(
                Welcome(
                    protocolVersion: WireProtocol.version, epoch: Epoch(rawValue: 1), position: 4,
                    content: .snapshot(stars), peers: [])),
            at: start)
        #expect(client.presence(at: start).state == nil, "hashed in the welcome")
        client.tick(at: start + 999)
        #expect(sentPresence(&client).allSatisfy { $0.state == nil })
        client.tick(at: start + 1_000)
        #expect(sentPresence(&client).last?.state == PresenceState(position: 4, hash: client.editor.document.stateHash))

        client.receive(.ops([PositionedOp(position: 5, op: F.moveStar(5, to: 30))]), at: start + 1_100)
        client.tick(at: start + 2_999)
        #expect(sentPresence(&client).allSatisfy { $0.state?.position == 4 }, "hashed again within a gap")
        client.tick(at: start + 3_000)
        #expect(sentPresence(&client).last?.state?.position == 5)
    }

    @Test func aClientWhoseWelcomeSaysVersionOneSharesNoState() throws {
        var client = try connectedClient(snapshot: [F.createStar()], protocol: 1)
        client.pointerMoved(to: Point(x: 1, y: 1), at: start + 1_000)
        let sent = sentPresence(&client)
        #expect(!sent.isEmpty && sent.allSatisfy { $0.state == nil })
    }

    @Test func peersAtTheSamePositionAgreeOrDisagreeByHashAndPeersElsewhereAreNeither() throws {
        var client = try connectedClient(snapshot: [F.createStar()])
        client.tick(at: start + 10)
        let mine = try #require(client.stateAtPosition)
        func peer(_ replica: ReplicaID, _ state: PresenceState) -> Message {
            .presence(Presence(replica: replica, user: ServerHarness.user("p"), state: state))
        }
        client.receive(peer(alice, mine), at: start + 20)
        client.receive(peer(carol, PresenceState(position: 1, hash: StateHash(rawValue: mine.hash.rawValue ^ 1))), at: start + 20)
        client.receive(peer(ReplicaID(rawValue: 0xD0), PresenceState(position: 7, hash: mine.hash)), at: start + 20)
        let agreement = client.stateAgreement
        #expect(agreement.agreeing == [alice])
        #expect(agreement.disagreeing == [carol])
    }
}
