import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// A peer's ended gesture stays drawn until the ops that commit it arrive,
/// or a bounded time: presence is relayed at once, ops after their commit.
@Suite("Settling gestures")
struct SettlingGestureTests {
    typealias F = RoomFixtures
    let start = Timestamp(milliseconds: 0)
    let dragging = GesturePreview.moving([F.star], by: Vector(dx: 30, dy: 0))

    func connectedClient() throws -> SyncClient {
        var client = SyncClient(
            document: try DocumentName("boards/one"), user: ServerHarness.user("bob"), replica: bob, at: start)
        client.connectionOpened(at: start)
        client.receive(
            .welcome(
                Welcome(
                    protocolVersion: WireProtocol.version, epoch: Epoch(rawValue: 1), position: 1,
                    content: .snapshot([F.createStar()]), peers: [])),
            at: start)
        return client
    }

    func alicePresence(_ gesture: GesturePreview?) -> Presence {
        Presence(replica: alice, user: ServerHarness.user("alice"), gesture: gesture)
    }

    func shown(_ client: SyncClient) -> [GesturePreview] { client.peerGestures.map(\.gesture) }

    @Test func aPeersEndedDragStaysShownUntilTheOpThatCommitsItArrives() throws {
        var client = try connectedClient()
        client.receive(.presence(alicePresence(dragging)), at: start + 10)
        client.receive(.presence(alicePresence(nil)), at: start + 20)
        #expect(shown(client) == [dragging], "the presence ending the drag overtook its op")
        client.tick(at: start + 200)
        #expect(shown(client) == [dragging])
        client.receive(.ops([PositionedOp(position: 2, op: F.moveStar(2, to: 30))]), at: start + 250)
        #expect(shown(client).isEmpty, "the op moved the star where the drag left it")
    }

    @Test func aPeersGestureThatCommitsNothingIsLetGoAfterTheBoundedTime() throws {
        var client = try connectedClient()
        client.receive(.presence(alicePresence(dragging)), at: start + 10)
        client.receive(.presence(alicePresence(nil)), at: start + 20)
        client.tick(at: start + 20 + 999)
        #expect(shown(client) == [dragging])
        client.tick(at: start + 20 + 1_000)
        #expect(shown(client).isEmpty)
    }

    @Test func onlyTheGesturesAuthorsOpOnItsEntitiesEndsTheSettling() throws {
        var client = try connectedClient()
        client.receive(.presence(alicePresence(dragging)), at: start + 10)
        client.receive(.presence(alicePresence(nil)), at: start + 20)
        client.receive(.ops([PositionedOp(position: 2, op: F.moveStar(2, by: carol, to: 5))]), at: start + 30)
        #expect(shown(client) == [dragging], "carol's op is not alice's commit")
        let other = op(3, alice, .create(.emoji, [.character("🦊")]))
        client.receive(.ops([PositionedOp(position: 3, op: other)]), at: start + 40)
        #expect(shown(client) == [dragging], "alice's op on another entity is not this drag's commit")
    }

    @Test func anOpThatOvertakesTheEndOfALiveGestureStopsItBeingDrawnTwice() throws {
        var client = try connectedClient()
        client.receive(.presence(alicePresence(dragging)), at: start + 10)
        client.receive(.ops([PositionedOp(position: 2, op: F.moveStar(2, to: 30))]), at: start + 20)
        #expect(shown(client).isEmpty, "the star is already where the drag put it; its offset again would overshoot")
        client.receive(.presence(alicePresence(nil)), at: start + 30)
        #expect(shown(client).isEmpty)
    }

    @Test func aNewGestureKeepsASettlingMoveAndReplacesASettlingStroke() throws {
        var client = try connectedClient()
        let stroke = GesturePreview.drawing(tool: .pen, color: .black, weight: 4, points: [Point(x: 0, y: 0)])
        client.receive(.presence(alicePresence(dragging)), at: start + 10)
        client.receive(.presence(alicePresence(nil)), at: start + 20)
        client.receive(.presence(alicePresence(stroke)), at: start + 30)
        #expect(shown(client) == [stroke, dragging], "the live stroke first, the settling drag after")
        client.receive(.presence(alicePresence(nil)), at: start + 40)
        let next = GesturePreview.drawing(tool: .pen, color: .black, weight: 4, points: [Point(x: 9, y: 9)])
        client.receive(.presence(alicePresence(next)), at: start + 50)
        #expect(shown(client) == [next], "one stroke in progress per peer")
    }

    @Test func aPeersEndedStrokeStaysShownWhileItsPointerMovesOnUntilItsOpsArrive() throws {
        var client = try connectedClient()
        let stroke = GesturePreview.drawing(tool: .pen, color: .black, weight: 4, points: [Point(x: 0, y: 0)])
        client.receive(.presence(alicePresence(stroke)), at: start + 10)
        client.receive(.presence(alicePresence(nil)), at: start + 20)
        var moved = alicePresence(nil)
        moved.cursor = Point(x: 40, y: 40)
        client.receive(.presence(moved), at: start + 70)
        #expect(shown(client) == [stroke], "a presence without a gesture ends no settling")
        client.receive(.ops([PositionedOp(position: 2, op: F.createStroke(2))]), at: start + 80)
        #expect(shown(client).isEmpty, "alice's next op is her stroke")
    }

    @Test func aClosedConnectionForgetsSettlingGestures() throws {
        var client = try connectedClient()
        client.receive(.presence(alicePresence(dragging)), at: start + 10)
        client.receive(.presence(alicePresence(nil)), at: start + 20)
        client.connectionClosed(at: start + 30)
        #expect(shown(client).isEmpty)
    }
}
