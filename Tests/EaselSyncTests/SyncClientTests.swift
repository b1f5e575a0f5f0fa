import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

@Suite("Client sync engine")
struct SyncClientTests {
    typealias F = RoomFixtures
    static let epoch = Epoch(rawValue: 0xE1)
    let start = Timestamp(milliseconds: 0)

    func client(encoding: WireEncoding = .binary) throws -> SyncClient {
        SyncClient(
            document: try DocumentName("boards/one"), user: ServerHarness.user("bob"), replica: bob,
            configuration: SyncClientConfiguration(encoding: encoding), at: start)
    }

    /// Connects and completes the welcome; returns what the client sent.
    @discardableResult
    func connect(
        _ client: inout SyncClient, snapshot: [Op]? = [], tail: [PositionedOp] = [], position: UInt64 = 0,
        epoch: Epoch = Self.epoch, peers: [Presence] = [], at now: Timestamp? = nil
    ) -> [Message] {
        let now = now ?? start
        client.connectionOpened(at: now)
        let content: Welcome.Content = snapshot.map { .snapshot($0) } ?? .tail(tail)
        client.receive(.welcome(Welcome(epoch: epoch, position: position, content: content, peers: peers)), at: now)
        return sent(&client)
    }

    func sent(_ client: inout SyncClient) -> [Message] {
        client.takeOutputs().compactMap { if case .send(let message) = $0 { message } else { nil } }
    }

    func pushes(_ messages: [Message]) -> [Push] {
        messages.compactMap { if case .push(let push) = $0 { push } else { nil } }
    }

    func pingNonce(in messages: [Message]) -> UInt64? {
        messages.lazy.compactMap { if case .ping(let nonce) = $0 { nonce } else { nil } }.first
    }

    func placeEmoji(_ client: inout SyncClient, at now: Timestamp? = nil) throws {
        try client.perform(.place(.emoji("🐝", size: 40), at: Point(x: 50, y: 50)), at: now ?? start)
    }

    // MARK: Outbox

    @Test func editsMadeOfflineWaitInTheOutboxAndArePushedAfterTheWelcome() throws {
        var client = try client()
        try placeEmoji(&client)
        #expect(sent(&client).isEmpty)
        #expect(client.unacknowledged.count == 1)

        client.connectionOpened(at: start)
        let hello = sent(&client)
        guard case .hello(let message)? = hello.first, hello.count == 1 else {
            Issue.record("expected a hello alone before the welcome, got \(hello)")
            return
        }
        #expect(message.since == nil)
        #expect(message.replica == bob)

        client.receive(.welcome(Welcome(epoch: Self.epoch, position: 0, content: .snapshot([]))), at: start)
        #expect(pushes(sent(&client)).map(\.ops) == [client.unacknowledged])
        #expect(client.editor.document.visibleCount == 1)
    }

    @Test func theLatestUnacknowledgedOpsAreTheTailOfAllOfThemWhereverTheyWait() throws {
        for seed in UInt64(1)...40 {
            var random = SeededRandom(seed: seed)
            var client = try client()
            for step in 0..<30 {
                switch Int.random(in: 0..<6, using: &random) {
                case 0: client.connectionOpened(at: Timestamp(milliseconds: Int64(step)))
                case 1: client.connectionClosed(at: Timestamp(milliseconds: Int64(step)))
                case 2:
                    if client.connectionState == .connecting {
                        client.receive(
                            .welcome(Welcome(epoch: Self.epoch, position: 0, content: .snapshot([]))),
                            at: Timestamp(milliseconds: Int64(step)))
                    }
                default: try placeEmoji(&client, at: Timestamp(milliseconds: Int64(step)))
                }
                _ = sent(&client)
                let all = client.unacknowledged
                for count in 0...(all.count + 1) {
                    #expect(
                        client.latestUnacknowledged(count) == Array(all.suffix(count)),
                        "seed \(seed), step \(step), the last \(count) of \(all.count)")
                }
            }
        }
    }

    @Test func anAckTakesThePushOutOfTheOutboxAndAdvancesTheResumePoint() throws {
        var client = try client()
        connect(&client)
        try placeEmoji(&client)
        let push = try #require(pushes(sent(&client)).first)
        client.receive(.ack(Ack(batch: push.batch, first: 7, count: 1)), at: start)
        #expect(client.unacknowledged.isEmpty)
        #expect(client.resumePoint == ResumePoint(position: 7, epoch: Self.epoch))
        #expect(client.takeEvents() == [.acknowledged(push.ops.map(\.id))])
    }

    @Test func aReconnectResendsEveryUnacknowledgedOpInOrderAndResumesFromItsPosition() throws {
        var client = try client()
        connect(&client, snapshot: [F.createStar()], position: 1)
        try placeEmoji(&client)
        let first = try #require(pushes(sent(&client)).first)
        client.receive(.ops([PositionedOp(position: 2, op: F.moveStar(2))]), at: start)
        client.connectionClosed(at: start)
        try placeEmoji(&client)
        #expect(client.connectionState == .offline)

        client.connectionOpened(at: start)
        guard case .hello(let hello)? = sent(&client).first else {
            Issue.record("expected a hello")
            return
        }
        #expect(hello.since == ResumePoint(position: 2, epoch: Self.epoch))
        client.receive(.welcome(Welcome(epoch: Self.epoch, position: 2, content: .tail([]))), at: start)
        let resent = pushes(sent(&client)).flatMap(\.ops)
        #expect(resent.count == 2)
        #expect(Array(resent.prefix(1)) == first.ops)
        #expect(resent == client.unacknowledged)
    }

    @Test func onAnEpochChangeTheClientRebuildsFromTheSnapshotAndPushesItsUnacknowledgedOpsAgain() throws {
        var client = try client()
        connect(&client, snapshot: [F.createStar(), F.moveStar(2)], position: 2)
        try placeEmoji(&client)
        _ = sent(&client)
        client.connectionClosed(at: start)

        // The history was restored from a backup: the star never moved.
        let restored = Epoch(rawValue: 0xE2)
        let resent = pushes(connect(&client, snapshot: [F.createStar()], position: 1, epoch: restored)).flatMap(\.ops)
        #expect(resent == client.unacknowledged)
        #expect(resent.count == 1)
        let expected = Document(applying: [F.createStar()] + resent)
        #expect(client.editor.document.stateHash == expected.stateHash)
        #expect(client.resumePoint == ResumePoint(position: 1, epoch: restored))
    }

    @Test func remoteOpsAreAppliedThroughTheEditorAndPruneTheSelection() throws {
        var client = try client()
        connect(&client, snapshot: [F.createStar()], position: 1)
        try client.send(.tap(at: Point(x: 0, y: 0)), at: start)
        #expect(client.editor.state.selection == [F.star])
        client.receive(.ops([PositionedOp(position: 2, op: op(2, alice, .delete(F.star)))]), at: start)
        #expect(client.editor.document.visibleCount == 0)
        #expect(client.editor.state.selection.isEmpty)
        #expect(client.resumePoint?.position == 2)
    }

    @Test func aRefusedPushIsDroppedAndTheNextConnectionAsksForAWholeSnapshot() throws {
        var client = try client()
        connect(&client, snapshot: [], position: 0)
        try placeEmoji(&client)
        let push = try #require(pushes(sent(&client)).first)
        let error = ErrorMessage(code: .unknownEntity, batch: push.batch, message: "no")
        client.receive(.error(error), at: start)
        #expect(client.takeOutputs().contains { if case .disconnect = $0 { true } else { false } })
        #expect(client.takeEvents() == [.refused(error, push.ops)])
        #expect(client.unacknowledged.isEmpty)
        client.connectionClosed(at: start)

        client.connectionOpened(at: start)
        guard case .hello(let hello)? = sent(&client).first else {
            Issue.record("expected a hello")
            return
        }
        #expect(hello.since == nil)
        client.receive(.welcome(Welcome(epoch: Self.epoch, position: 0, content: .snapshot([]))), at: start)
        #expect(client.editor.document.visibleCount == 0)
    }

    @Test func aPushTheServerCouldNotDecodeIsRefusedByItsBatchAndTheOthersStayInFlight() throws {
        var client = try client()
        connect(&client)
        try placeEmoji(&client)
        let first = try #require(pushes(sent(&client)).first)
        try placeEmoji(&client)
        let second = try #require(pushes(sent(&client)).first)
        let error = ErrorMessage(code: .tooLarge, batch: second.batch, message: "a text of 16385 bytes")
        client.receive(.error(error), at: start)
        #expect(client.takeEvents() == [.refused(error, second.ops)])
        #expect(client.unacknowledged == first.ops)
    }

    @Test func aTransactionLargerThanOnePushIsCutIntoPushesWithinTheOpLimit() throws {
        var client = try client()
        let many = (1...5_000).map { op(UInt64($0), alice, .create(.emoji, [.character("🐜")])) }
        connect(&client, snapshot: many, position: 5_000)
        try client.perform(.clearAll, at: start)
        let cut = pushes(sent(&client))
        #expect(cut.map(\.ops.count) == [ProtocolLimits.opsPerPush, 5_000 - ProtocolLimits.opsPerPush])
        #expect(cut.flatMap(\.ops) == client.unacknowledged)
    }

    @Test func pushesStayWithinTheMessageByteLimitInTheConnectionsEncoding() throws {
        var client = try client(encoding: .json)
        let texts = (1...100).map { op(UInt64($0), alice, .create(.text, [.text("")])) }
        connect(&client, snapshot: texts, position: 100)
        let long = String(repeating: "é", count: 8_000)
        for entity in client.editor.document.entities {
            try client.perform(.editText(entity.id, long), at: start)
        }
        let cut = pushes(sent(&client))
        #expect(cut.count > 1)
        #expect(cut.allSatisfy { Message.push($0).encoded(as: .json).count <= ProtocolLimits.messageBytes })
        #expect(cut.flatMap(\.ops) == client.unacknowledged)
    }

    @Test func pushesLeftUnacknowledgedAreSentAgainAsTheyWereSoARefusalDropsOnlyItsOwnOps() throws {
        var client = try client()
        connect(&client)
        try placeEmoji(&client)
        let first = try #require(pushes(sent(&client)).first)
        try placeEmoji(&client)
        let second = try #require(pushes(sent(&client)).first)
        client.connectionClosed(at: start)

        let resent = pushes(connect(&client, snapshot: nil, tail: []))
        #expect(resent.map(\.ops) == [first.ops, second.ops])
        client.receive(.error(ErrorMessage(code: .unknownEntity, batch: resent[0].batch, message: "no")), at: start)
        #expect(client.unacknowledged == second.ops)
    }

    @Test func aPushRefusedForNowIsKeptAndSentAgainOnTheNextConnection() throws {
        var client = try client()
        connect(&client)
        try placeEmoji(&client)
        let push = try #require(pushes(sent(&client)).first)
        let error = ErrorMessage(code: .internalError, batch: push.batch, message: "try again")
        client.receive(.error(error), at: start)
        #expect(client.takeOutputs().contains { if case .disconnect = $0 { true } else { false } })
        #expect(client.takeEvents() == [.serverError(error)])
        #expect(client.unacknowledged == push.ops)
        client.connectionClosed(at: start)
        #expect(pushes(connect(&client, snapshot: nil)).map(\.ops) == [push.ops])
    }

    @Test func aTransportThatReconnectsWithoutReportingTheCloseLosesNothing() throws {
        var client = try client()
        connect(&client)
        try placeEmoji(&client)
        let push = try #require(pushes(sent(&client)).first)
        #expect(pushes(connect(&client, snapshot: nil)).map(\.ops) == [push.ops])
    }

    @Test func anAckReachingPastTheLastPositionIsHarmless() throws {
        var client = try client()
        connect(&client)
        try placeEmoji(&client)
        let push = try #require(pushes(sent(&client)).first)
        client.receive(.ack(Ack(batch: push.batch, first: .max, count: 2)), at: start)
        #expect(client.unacknowledged.isEmpty)
        #expect(client.resumePoint?.position == 0)
    }

    // MARK: Saved sessions

    @Test func aSavedSessionKeepsTheOutboxReplicaAndCounterAcrossARestart() throws {
        var client = try client()
        try placeEmoji(&client)
        try placeEmoji(&client)
        let saved = try SavedSession(encoded: client.savedSession.encoded())
        #expect(saved == client.savedSession)

        var restored = SyncClient(
            document: try DocumentName("boards/one"), user: ServerHarness.user("bob"), restoring: saved, at: start)
        #expect(restored.replica == bob)
        #expect(restored.editor.document.visibleCount == 2)
        let pushed = pushes(connect(&restored)).flatMap(\.ops)
        #expect(pushed == saved.unacknowledged)
        // The session may predate ops acknowledged later: new IDs skip ahead.
        try placeEmoji(&restored)
        #expect(
            restored.unacknowledged.last.map { $0.id.counter > saved.counter + SavedSession.counterGapAfterRestore }
                == true)
    }

    @Test func aDamagedSavedSessionIsRefusedWithAClearError() throws {
        var client = try client()
        try placeEmoji(&client)
        var bytes = client.savedSession.encoded()
        #expect(throws: DecodeError.self) { try SavedSession(encoded: Array(bytes.prefix(10))) }
        bytes[0] = UInt8(ascii: "X")
        #expect(throws: DecodeError.self) { try SavedSession(encoded: bytes) }
    }

    // MARK: Connection state

    @Test func theConnectionStateGoesConnectingConnectedWeakAndOffline() throws {
        var client = try client()
        #expect(client.connectionState == .offline)
        client.connectionOpened(at: start)
        #expect(client.connectionState == .connecting)
        client.receive(.welcome(Welcome(epoch: Self.epoch, position: 0, content: .snapshot([]))), at: start)
        #expect(client.connectionState == .connected)

        try placeEmoji(&client)
        _ = sent(&client)
        client.tick(at: start + 3_001)
        #expect(client.connectionState == .weak, "an ack more than 3 s late makes the connection weak")
        client.connectionClosed(at: start + 3_001)
        #expect(client.connectionState == .offline)
    }

    @Test func aSlowRoundTripMakesTheConnectionWeakAndAPromptOneStrongAgain() throws {
        var client = try client()
        connect(&client)
        client.tick(at: start + 5_000)
        guard let nonce = pingNonce(in: sent(&client)) else {
            Issue.record("expected a ping after the ping interval")
            return
        }
        client.tick(at: start + 6_001)
        #expect(client.connectionState == .weak)
        client.receive(.pong(nonce: nonce), at: start + 6_001)
        #expect(client.roundTrip == 1_001)
        client.tick(at: start + 11_001)
        guard let second = pingNonce(in: sent(&client)) else {
            Issue.record("expected a second ping")
            return
        }
        client.receive(.pong(nonce: second), at: start + 11_050)
        client.tick(at: start + 11_060)
        #expect(client.connectionState == .connected)
    }

    func disconnects(_ client: inout SyncClient) -> [String] {
        client.takeOutputs().compactMap { if case .disconnect(let reason) = $0 { reason } else { nil } }
    }

    @Test func aConnectionThatSaysNothingFor15SecondsThoughPingedIsDroppedSoTheTransportReconnects() throws {
        var client = try client()
        connect(&client)
        client.tick(at: start + 5_000)
        #expect(pingNonce(in: sent(&client)) != nil)
        client.tick(at: start + 14_999)
        #expect(disconnects(&client).isEmpty, "not yet 15 s since the welcome")
        client.tick(at: start + 15_000)
        #expect(disconnects(&client).count == 1)
        client.tick(at: start + 25_000)
        #expect(disconnects(&client).isEmpty, "asked once, while the transport closes")
        client.connectionClosed(at: start + 25_000)
        connect(&client, at: start + 25_100)
        client.tick(at: start + 30_100)
        #expect(pingNonce(in: sent(&client)) != nil, "the next connection pings afresh")
        client.tick(at: start + 40_000)
        #expect(disconnects(&client).isEmpty, "15 s from the new welcome, not from the old connection")
    }

    @Test func messagesStillArrivingKeepAConnectionWhosePongIsLateAlive() throws {
        var client = try client()
        connect(&client)
        client.tick(at: start + 5_000)
        #expect(pingNonce(in: sent(&client)) != nil)
        // A long welcome's chunks (or any message) on a slow link, the pong
        // behind them.
        for second in stride(from: 10_000, through: 40_000, by: 10_000) {
            client.receive(.ping(nonce: UInt64(second)), at: start + Int64(second))
            client.tick(at: start + Int64(second) + 1)
            #expect(disconnects(&client).isEmpty, "\(second) ms")
        }
        client.tick(at: start + 55_000)
        #expect(disconnects(&client).count == 1, "15 s of nothing at all")
    }
}
