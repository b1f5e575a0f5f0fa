import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// The limits of `ServerLimits`, each enforced by the sans-IO server.
@Suite struct ServerLimitsTests {
    private func harness(_ change: (inout ServerLimits) -> Void) throws -> ServerHarness {
        var configuration = ServerConfiguration()
        change(&configuration.limits)
        return try ServerHarness(configuration: configuration, commitsImmediately: true)
    }

    private func hello(_ document: String, _ replica: ReplicaID) throws -> Message {
        .hello(
            Hello(
                protocolVersion: 1, document: try DocumentName(document), replica: replica,
                user: ServerHarness.user("u\(replica.rawValue)")))
    }

    @Test func pushesBeyondTheRateAreRefusedAsRateLimitedAndNothingOfThemIsStored() throws {
        let harness = try harness { $0.pushesPerSecond = 5 }
        let (connection, _) = harness.join(alice, as: "alice")
        // A burst of twice the rate passes; the next push in the same
        // millisecond does not.
        for counter in 1...10 {
            let accepted = harness.push(
                [RoomFixtures.createStar(UInt64(counter))], batch: UInt64(counter), from: connection)
            #expect(accepted.errors(to: connection).isEmpty)
        }
        let refused = harness.push([RoomFixtures.createStar(11)], batch: 11, from: connection)
        #expect(refused.errors(to: connection).map(\.code) == [.rateLimited])
        #expect(refused.errors(to: connection).map(\.batch) == [11])
        #expect(refused.errors(to: connection).map(\.fatal) == [false])
        #expect(refused.appended.isEmpty)
        // Until the client sends it again, on a new connection, nothing
        // after it is taken: a replica's ops are stored in their order.
        harness.now = harness.now + 200
        let held = harness.push([RoomFixtures.createStar(12)], batch: 12, from: connection)
        #expect(held.errors(to: connection).map(\.code) == [.rateLimited])
        #expect(held.appended.isEmpty)
        harness.close(connection)
        let (again, _) = harness.join(alice, as: "alice")
        let later = harness.push([RoomFixtures.createStar(11)], batch: 13, from: again)
        #expect(later.errors(to: again).isEmpty)
        #expect(later.appended.count == 1)
    }

    @Test func aPresenceFloodIsDroppedThenClosedWithTooManyInvalid() throws {
        let harness = try harness { _ in }
        let (flooder, _) = harness.join(alice, as: "alice")
        let (peer, _) = harness.join(bob, as: "bob")
        var relayed = 0
        var closes: [CloseCode] = []
        var codes: [ErrorCode] = []
        for index in 0..<200 where closes.isEmpty {
            let presence = Presence(
                replica: alice, user: ServerHarness.user("alice"), cursor: Point(x: Float(index), y: 0))
            let transcript = harness.send(.presence(presence), from: flooder)
            relayed += transcript.messages(to: peer).filter { if case .presence = $0 { true } else { false } }.count
            closes += transcript.closes(of: flooder)
            codes += transcript.errors(to: flooder).map(\.code)
        }
        #expect(closes == [.tooManyInvalid])
        #expect(Set(codes) == [.rateLimited])
        // All in one millisecond: only the first was relayed.
        #expect(relayed == 1)
        // 40 in the burst, then 16 refusals forgiven, then the close.
        #expect(codes.count == 17 + 1)
    }

    @Test func refusedMessagesAreForgivenOneASecond() throws {
        let harness = try harness { $0.refusedMessageAllowance = 2 }
        let (connection, _) = harness.join(alice, as: "alice")
        for _ in 0..<10 {
            let transcript = harness.refuse(DecodeError(.truncated, "cut short"), from: connection)
            #expect(transcript.closes(of: connection).isEmpty)
            harness.now = harness.now + 1000
        }
        harness.refuse(DecodeError(.truncated, "cut short"), from: connection)
        harness.refuse(DecodeError(.truncated, "cut short"), from: connection)
        let third = harness.refuse(DecodeError(.truncated, "cut short"), from: connection)
        #expect(third.closes(of: connection) == [.tooManyInvalid])
    }

    @Test func aPushWithMoreOpsThanTheServerAllowsIsRefusedAsTooLarge() throws {
        let harness = try harness { $0.opsPerPush = 2 }
        let (connection, _) = harness.join(alice, as: "alice")
        let ops = (1...3).map { RoomFixtures.createStar(UInt64($0)) }
        let transcript = harness.push(ops, from: connection)
        #expect(transcript.errors(to: connection).map(\.code) == [.tooLarge])
        #expect(transcript.appended.isEmpty)
        #expect(harness.push(Array(ops.prefix(2)), batch: 2, from: connection).appended.count == 2)
    }

    @Test func aDocumentAtItsConnectionLimitRefusesTheNextAsRoomFull() throws {
        let harness = try harness { $0.connectionsPerRoom = 2 }
        _ = harness.join(alice, as: "alice")
        _ = harness.join(bob, as: "bob")
        let (third, transcript) = harness.join(carol, as: "carol")
        #expect(transcript.errors(to: third).map(\.code) == [.roomFull])
        #expect(transcript.closes(of: third) == [.tryAgainLater])
        #expect(transcript.welcome(to: third) == nil)
    }

    @Test func theSameUserTakingOverTheirReplicaIsNotCountedTwiceAgainstTheRoomLimit() throws {
        let harness = try harness { $0.connectionsPerRoom = 1 }
        let (first, _) = harness.join(alice, as: "alice")
        let (second, transcript) = harness.join(alice, as: "alice")
        #expect(transcript.closes(of: first) == [.replaced])
        #expect(transcript.welcome(to: second) != nil)
    }

    @Test func aServerAtItsRoomLimitUnloadsTheLongestIdleRoomToMakeRoom() throws {
        let harness = try harness { $0.rooms = 2 }
        for (index, document) in ["a", "b"].enumerated() {
            let connection = harness.connect()
            harness.send(try hello(document, ReplicaID(rawValue: UInt64(index + 1))), from: connection)
            harness.completeLoads()
            harness.close(connection)
            harness.now = harness.now + 10
        }
        let connection = harness.connect()
        let transcript = harness.send(try hello("c", carol), from: connection)
        #expect(transcript.outputs.contains(.unloaded(try DocumentName("a"), head: 0)))
        #expect(harness.server.openDocuments.map(\.rawValue) == ["b", "c"])
        #expect(transcript.closes(of: connection).isEmpty)
    }

    @Test func aServerAtItsRoomLimitWithNoIdleRoomRefusesANewDocumentAsServerFull() throws {
        let harness = try harness { $0.rooms = 1 }
        _ = harness.join(alice, as: "alice")
        let connection = harness.connect()
        let transcript = harness.send(try hello("elsewhere", bob), from: connection)
        #expect(transcript.errors(to: connection).map(\.code) == [.serverFull])
        #expect(transcript.closes(of: connection) == [.tryAgainLater])
        #expect(harness.server.openDocuments.count == 1)
    }

    @Test func connectionsThatNeverSayHelloHaveAPoolOfTheirOwnAndCannotCrowdOutJoinedOnes() throws {
        let harness = try harness {
            $0.connectionsAwaitingHello = 2
            $0.connections = 100
        }
        _ = harness.connect()
        _ = harness.connect()
        let third = harness.connect()
        let refused = harness.send(try hello("boards/one", carol), from: third)
        #expect(refused.errors(to: third).map(\.code) == [.serverFull])
        #expect(refused.closes(of: third) == [.tryAgainLater])
        harness.close(third)
        // Ten seconds on, the silent ones are closed and the pool is free.
        let timedOut = harness.advance(by: 10_000)
        #expect(timedOut.outputs.filter { if case .close(_, .noHello) = $0 { true } else { false } }.count == 2)
        for output in timedOut.outputs { if case .close(let silent, _) = output { harness.close(silent) } }
        let (joiner, joined) = harness.join(alice, as: "alice")
        #expect(joined.welcome(to: joiner) != nil)
    }

    @Test func aServerAtItsJoinedConnectionLimitRefusesTheNextHelloAsServerFull() throws {
        let harness = try harness { $0.connections = 1 }
        _ = harness.join(alice, as: "alice")
        let (second, transcript) = harness.join(bob, as: "bob")
        #expect(transcript.errors(to: second).map(\.code) == [.serverFull])
        #expect(transcript.closes(of: second) == [.tryAgainLater])
    }

    @Test func aConnectionIsClosedWhenItsCredentialExpires() throws {
        let expiry = Timestamp(milliseconds: 1_700_000_001_000)
        var configuration = ServerConfiguration()
        configuration.limits = ServerLimits()
        let harness = try ServerHarness(configuration: configuration) { _, _ in
            .success(ConnectionIdentity(user: "ada", role: .edit, expires: expiry))
        }
        let (connection, _) = harness.join(alice, as: "ada")
        #expect(harness.advance(by: 500).closes(of: connection).isEmpty)
        let expired = harness.advance(by: 500)
        #expect(expired.errors(to: connection).map(\.code) == [.tokenExpired])
        #expect(expired.closes(of: connection) == [.refused])
    }

    @Test func aRoomWithTooManyOpsWaitingForStorageRefusesPushesForNow() throws {
        var configuration = ServerConfiguration()
        configuration.limits.pendingOpsPerRoom = 4096
        let harness = try ServerHarness(configuration: configuration)
        let (connection, _) = harness.join(alice, as: "alice")
        let waiting = (1...4000).map { RoomFixtures.createStar(UInt64($0)) }
        #expect(harness.push(waiting, batch: 1, from: connection).errors(to: connection).isEmpty)
        let more = (4001...4100).map { RoomFixtures.createStar(UInt64($0)) }
        let refused = harness.push(more, batch: 2, from: connection)
        #expect(refused.errors(to: connection).map(\.code) == [.rateLimited])
        #expect(refused.appended.isEmpty)
        harness.commit()
        // The client sends it again on its next connection (it closes this one).
        harness.close(connection)
        let (again, _) = harness.join(alice, as: "alice")
        #expect(harness.push(more, batch: 3, from: again).errors(to: again).isEmpty)
    }

    @Test(
        "a push refused for now holds back the connection's later pushes, so a replica's ops are stored in their order; sent again on a new connection, they are stored, not taken for resends"
    )
    func aPushRefusedForNowHoldsBackTheLaterOnes() throws {
        var configuration = ServerConfiguration()
        configuration.limits.pendingOpsPerRoom = 3
        let harness = try ServerHarness(configuration: configuration)
        let (connection, _) = harness.join(alice, as: "alice")
        let first = [RoomFixtures.createStar(1), RoomFixtures.moveStar(2)]
        let second = [RoomFixtures.moveStar(3), RoomFixtures.moveStar(4)]
        let third = [RoomFixtures.moveStar(5)]
        #expect(harness.push(first, batch: 1, from: connection).errors(to: connection).isEmpty)
        #expect(harness.push(second, batch: 2, from: connection).errors(to: connection).map(\.code) == [.rateLimited])
        // It would fit, but would put counter 5 before 3 and 4.
        let held = harness.push(third, batch: 3, from: connection)
        #expect(held.errors(to: connection).map(\.code) == [.rateLimited])
        #expect(held.appended.isEmpty)
        harness.commit()
        harness.close(connection)
        let (again, _) = harness.join(alice, as: "alice")
        let resent = harness.push(second + third, batch: 4, from: again)
        #expect(resent.errors(to: again).isEmpty)
        #expect(resent.appended.map(\.op.id.counter) == [3, 4, 5])
    }

    @Test func aClientSendingPresenceAtTheProtocolsRateAndPingingIsNeverRefused() throws {
        let harness = try harness { _ in }
        let (connection, _) = harness.join(alice, as: "alice")
        var refusals: [ErrorCode] = []
        for tick in 0..<6_000 {
            harness.now = harness.now + 50
            let presence = Presence(
                replica: alice, user: ServerHarness.user("alice"), cursor: Point(x: Float(tick), y: 0))
            refusals += harness.send(.presence(presence), from: connection).errors(to: connection).map(\.code)
            if tick % 100 == 0 {
                refusals += harness.send(.ping(nonce: UInt64(tick)), from: connection).errors(to: connection).map(
                    \.code)
            }
        }
        #expect(refusals.isEmpty)
    }

    @Test func pingsBeyondTheirRateAreDroppedAsRateLimited() throws {
        let harness = try harness { _ in }
        let (connection, _) = harness.join(alice, as: "alice")
        var answers: [Message] = []
        for nonce in 0..<11 {
            answers += harness.send(.ping(nonce: UInt64(nonce)), from: connection).messages(to: connection)
        }
        #expect(answers.filter { if case .pong = $0 { true } else { false } }.count == 10)
        #expect(
            answers.last.flatMap { if case .error(let error) = $0 { error.code } else { nil } } == ErrorCode.rateLimited
        )
    }

    @Test func aMemberThatNeverSharedPresenceLeavesWithoutALeaveMessage() throws {
        let harness = try harness { _ in }
        let (quiet, _) = harness.join(alice, as: "alice")
        let (peer, _) = harness.join(bob, as: "bob")
        #expect(harness.close(quiet).messages(to: peer).isEmpty)
    }

    @Test func limitsOutsideTheirRangeAreNamed() {
        var limits = ServerLimits()
        #expect(limits.problems.isEmpty)
        limits.messageBytes = ProtocolLimits.messageBytes + 1
        limits.presencePerSecond = 0
        #expect(limits.problems.count == 2)
        #expect(limits.problems.first?.contains("message bytes") == true)
    }
}
