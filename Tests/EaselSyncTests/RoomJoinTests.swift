import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

@Suite("Room: joining")
struct RoomJoinTests {
    typealias F = RoomFixtures

    @Test func aNewClientIsWelcomedWithTheCommittedSnapshotAndTheDocumentsEpoch() throws {
        let harness = try ServerHarness()
        let (author, _) = harness.join(alice, as: "alice")
        harness.pushCommitted([F.createStar(), F.moveStar(2)], from: author)

        let (newcomer, transcript) = harness.join(bob, as: "bob")
        let welcome = try #require(transcript.welcome(to: newcomer))
        #expect(welcome.epoch == harness.storage.history(of: harness.document.rawValue).epoch)
        #expect(welcome.position == 2)
        #expect(welcome.more == false)
        guard case .snapshot(let ops) = welcome.content else {
            Issue.record("expected a snapshot, got \(welcome.content)")
            return
        }
        #expect(Document(applying: ops).stateHash == Document(applying: [F.createStar(), F.moveStar(2)]).stateHash)
    }

    @Test func aResumingClientGetsExactlyTheCommittedOpsAfterItsPosition() throws {
        let harness = try ServerHarness()
        let (author, joined) = harness.join(alice, as: "alice")
        let epoch = try #require(joined.welcome(to: author)).epoch
        harness.pushCommitted([F.createStar(), F.moveStar(2), F.moveStar(3, to: 20)], from: author)

        let (resumer, transcript) = harness.join(bob, as: "bob", since: ResumePoint(position: 1, epoch: epoch))
        let welcome = try #require(transcript.welcome(to: resumer))
        #expect(
            welcome.content
                == .tail([
                    PositionedOp(position: 2, op: F.moveStar(2)), PositionedOp(position: 3, op: F.moveStar(3, to: 20)),
                ]))
        #expect(welcome.position == 3)
    }

    @Test func aClientWhosePositionIsBeyondTheHeadGetsASnapshot() throws {
        let harness = try ServerHarness()
        let (author, joined) = harness.join(alice, as: "alice")
        let epoch = try #require(joined.welcome(to: author)).epoch
        harness.pushCommitted([F.createStar()], from: author)
        let (resumer, transcript) = harness.join(bob, as: "bob", since: ResumePoint(position: 9, epoch: epoch))
        let welcome = try #require(transcript.welcome(to: resumer))
        #expect(welcome.content == .snapshot([F.createStar()]))
        #expect(welcome.position == 1)
    }

    @Test func aClientResumingAtTheHeadGetsAnEmptyTail() throws {
        let harness = try ServerHarness()
        let (author, joined) = harness.join(alice, as: "alice")
        let epoch = try #require(joined.welcome(to: author)).epoch
        harness.pushCommitted([F.createStar()], from: author)
        let (resumer, transcript) = harness.join(bob, as: "bob", since: ResumePoint(position: 1, epoch: epoch))
        #expect(try #require(transcript.welcome(to: resumer)).content == .tail([]))
    }

    @Test func aClientOfAnotherEpochGetsASnapshot() throws {
        let harness = try ServerHarness()
        let (author, joined) = harness.join(alice, as: "alice")
        let epoch = try #require(joined.welcome(to: author)).epoch
        harness.pushCommitted([F.createStar(), F.moveStar(2)], from: author)

        let other = Epoch(rawValue: epoch.rawValue &+ 1)
        let (resumer, transcript) = harness.join(bob, as: "bob", since: ResumePoint(position: 1, epoch: other))
        guard case .snapshot = try #require(transcript.welcome(to: resumer)).content else {
            Issue.record("a position of another epoch must get a snapshot")
            return
        }
    }

    @Test func afterTheHistoryIsRestoredUnderANewEpochAReturningClientGetsTheRestoredSnapshot() throws {
        let harness = try ServerHarness()
        let (author, joined) = harness.join(alice, as: "alice")
        let epoch = try #require(joined.welcome(to: author)).epoch
        harness.pushCommitted([F.createStar()], from: author)
        let backup = harness.storage.history(of: harness.document.rawValue)
        harness.pushCommitted([F.moveStar(2)], batch: 2, from: author)
        harness.close(author)
        harness.advance(by: 30_000)
        #expect(harness.server.openDocuments.isEmpty)
        harness.storage.restore(harness.document.rawValue, to: backup)

        let (returning, transcript) = harness.join(alice, as: "alice", since: ResumePoint(position: 2, epoch: epoch))
        let welcome = try #require(transcript.welcome(to: returning))
        #expect(welcome.epoch != epoch)
        #expect(welcome.position == 1)
        guard case .snapshot(let ops) = welcome.content else {
            Issue.record("a position of the replaced history must get a snapshot")
            return
        }
        #expect(Document(applying: ops).stateHash == Document(applying: [F.createStar()]).stateHash)
    }

    @Test func aClientFurtherBehindThanTheRoomRetainsGetsASnapshot() throws {
        var configuration = ServerConfiguration()
        configuration.retainedOps = 2
        let harness = try ServerHarness(configuration: configuration)
        let (author, joined) = harness.join(alice, as: "alice")
        let epoch = try #require(joined.welcome(to: author)).epoch
        harness.pushCommitted([F.createStar()] + (2...6).map { F.moveStar($0, to: Float($0)) }, from: author)

        let (behind, farTranscript) = harness.join(bob, as: "bob", since: ResumePoint(position: 1, epoch: epoch))
        guard case .snapshot = try #require(farTranscript.welcome(to: behind)).content else {
            Issue.record("ops the room no longer retains must come as a snapshot")
            return
        }
        let (near, nearTranscript) = harness.join(carol, as: "carol", since: ResumePoint(position: 5, epoch: epoch))
        #expect(
            try #require(nearTranscript.welcome(to: near)).content
                == .tail([PositionedOp(position: 6, op: F.moveStar(6, to: 6))]))
    }

    @Test func joinsDuringALoadWaitAndIsWelcomedOnceTheHistoryHasLoaded() throws {
        let harness = try ServerHarness()
        harness.storage.defersLoads = true
        let (first, waiting) = harness.join(alice, as: "alice")
        let (second, _) = harness.join(bob, as: "bob")
        #expect(waiting.welcome(to: first) == nil)

        let loaded = harness.completeLoads()
        #expect(loaded.welcome(to: first) != nil)
        #expect(loaded.welcome(to: second) != nil)
    }

    @Test func aWelcomeListsThePresenceOfThePeersAlreadyThere() throws {
        let harness = try ServerHarness()
        let (present, _) = harness.join(alice, as: "alice")
        let presence = Presence(replica: alice, user: ServerHarness.user("alice"), cursor: Point(x: 3, y: 4))
        harness.send(.presence(presence), from: present)

        let (newcomer, transcript) = harness.join(bob, as: "bob")
        #expect(try #require(transcript.welcome(to: newcomer)).peers == [presence])
    }

    @Test func aMessageBeforeHelloIsRefusedAndTheConnectionClosed() throws {
        let harness = try ServerHarness()
        let connection = harness.connect()
        let transcript = harness.push([F.createStar()], from: connection)
        #expect(transcript.errors(to: connection).map(\.code) == [.notJoined])
        #expect(transcript.errors(to: connection).first?.fatal == true)
        #expect(transcript.closes(of: connection) == [.fatalError])
        #expect(transcript.appended.isEmpty)
    }

    @Test func aSecondHelloIsRefusedAndTheConnectionStays() throws {
        let harness = try ServerHarness()
        let (connection, _) = harness.join(alice, as: "alice")
        let transcript = harness.send(harness.hello(alice, as: "alice"), from: connection)
        #expect(transcript.errors(to: connection).map(\.code) == [.alreadyJoined])
        #expect(transcript.closes(of: connection).isEmpty)
        #expect(harness.pushCommitted([F.createStar()], from: connection).messages(to: connection).count == 1)
    }

    @Test func aProtocolVersionTheServerDoesNotSpeakIsRefused() throws {
        let harness = try ServerHarness()
        let connection = harness.connect()
        let transcript = harness.send(harness.hello(alice, as: "alice", protocol: 0), from: connection)
        #expect(transcript.errors(to: connection).map(\.code) == [.unsupportedProtocol])
        #expect(transcript.closes(of: connection) == [.fatalError])
    }

    @Test func aNewerClientIsAnsweredInTheVersionBothSpeak() throws {
        let harness = try ServerHarness()
        let connection = harness.connect()
        let transcript = harness.send(harness.hello(alice, as: "alice", protocol: 7), from: connection)
        #expect(try #require(transcript.welcome(to: connection)).protocolVersion == WireProtocol.version)
    }

    @Test func anotherUserCannotTakeOverAReplicaBoundToALiveConnection() throws {
        let harness = try ServerHarness()
        let (owner, _) = harness.join(alice, as: "alice")
        let (intruder, transcript) = harness.join(alice, as: "mallory")
        #expect(transcript.errors(to: intruder).map(\.code) == [.replicaInUse])
        #expect(transcript.closes(of: intruder) == [.refused])
        #expect(transcript.closes(of: owner).isEmpty)
    }

    @Test func theSameUserReconnectingWithItsReplicaReplacesTheStaleConnection() throws {
        let harness = try ServerHarness()
        let (stale, _) = harness.join(alice, as: "alice")
        let (watcher, _) = harness.join(bob, as: "bob")
        let (fresh, transcript) = harness.join(alice, as: "alice")
        #expect(transcript.closes(of: stale) == [.replaced])
        #expect(transcript.welcome(to: fresh) != nil)
        // The replica is still here: its peers are not told it left, even
        // once the stale socket is gone.
        #expect(transcript.messages(to: watcher).isEmpty)
        #expect(harness.close(stale).messages(to: watcher).isEmpty)
        #expect(
            harness.pushCommitted([F.createStar()], from: fresh).messages(to: fresh).first
                == .ack(Ack(batch: 1, first: 1, count: 1)))
    }

    @Test func aConnectionThatNeverSaysHelloIsClosedInTime() throws {
        let harness = try ServerHarness()
        let connection = harness.connect()
        #expect(harness.advance(by: 9_000).closes(of: connection).isEmpty)
        #expect(harness.advance(by: 1_000).closes(of: connection) == [.noHello])
    }
}
