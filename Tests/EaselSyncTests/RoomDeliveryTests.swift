import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

@Suite("Room: delivery")
struct RoomDeliveryTests {
    typealias F = RoomFixtures

    @Test func theCommitsOfOneTurnReachAnOnlookerAsOneMessageSharedWithOtherOnlookers() throws {
        let harness = try ServerHarness()
        let (author, _) = harness.join(alice, as: "alice")
        let (first, _) = harness.join(bob, as: "bob")
        let (second, _) = harness.join(carol, as: "carol")
        harness.push([F.createStar()], batch: 1, from: author)
        harness.push([F.moveStar(2)], batch: 2, from: author)
        let committed = harness.commit()
        let shared = committed.sends.filter { $0.1.contains(first) }
        #expect(shared.count == 1)
        #expect(shared.first?.1 == [first, second])
        #expect(shared.first.map { F.positions($0.0) } == [1, 2])
    }

    @Test func anAuthorGetsItsAcksAndTheOthersOpsInPositionOrderAndNeverItsOwnOps() throws {
        let harness = try ServerHarness()
        let (aliceConnection, _) = harness.join(alice, as: "alice")
        let (bobConnection, _) = harness.join(bob, as: "bob")
        harness.pushCommitted([F.createStar()], from: aliceConnection)
        harness.push([F.moveStar(2, to: 1)], batch: 2, from: aliceConnection)
        harness.push([F.moveStar(3, by: bob, to: 2)], batch: 1, from: bobConnection)
        harness.push([F.moveStar(4, to: 3)], batch: 3, from: aliceConnection)
        let committed = harness.commit()
        #expect(
            committed.messages(to: aliceConnection) == [
                .ack(Ack(batch: 2, first: 2, count: 1)),
                .ops([PositionedOp(position: 3, op: F.moveStar(3, by: bob, to: 2))]),
                .ack(Ack(batch: 3, first: 4, count: 1)),
            ])
        #expect(
            committed.messages(to: bobConnection) == [
                .ops([PositionedOp(position: 2, op: F.moveStar(2, to: 1))]),
                .ack(Ack(batch: 1, first: 3, count: 1)),
                .ops([PositionedOp(position: 4, op: F.moveStar(4, to: 3))]),
            ])
    }

    @Test func aClientThatJoinedAfterACommitButBeforeItsDeliveryIsNotSentItAgain() throws {
        let harness = try ServerHarness()
        let server = harness.server
        let (author, _) = harness.join(alice, as: "alice")
        server.receive(.push(Push(batch: 1, ops: [F.createStar()])), from: author, at: harness.now)
        let appends = server.takeOutputs().compactMap { output -> StorageTicket? in
            if case .append(_, _, let ticket) = output { ticket } else { nil }
        }
        let ticket = try #require(appends.first)
        // Committed but not yet delivered when the newcomer's hello arrives.
        server.stored(ticket, .success(()), at: harness.now)
        let late = ConnectionID(rawValue: 99)
        server.open(late, at: harness.now)
        server.receive(harness.hello(bob, as: "bob"), from: late, at: harness.now)
        let transcript = Transcript(outputs: server.takeOutputs())
        #expect(try #require(transcript.welcome(to: late)).position == 1)
        #expect(transcript.messages(to: late).count == 1)
        #expect(transcript.messages(to: author) == [.ack(Ack(batch: 1, first: 1, count: 1))])
    }

    @Test func aPingIsAnsweredWithAPongCarryingItsNonce() throws {
        let harness = try ServerHarness()
        let (connection, _) = harness.join(alice, as: "alice")
        #expect(harness.send(.ping(nonce: 42), from: connection).messages(to: connection) == [.pong(nonce: 42)])
    }

    @Test func aMessageOnlyAServerSendsIsAnsweredWithUnknownMessageType() throws {
        let harness = try ServerHarness()
        let (connection, _) = harness.join(alice, as: "alice")
        for message in [Message.ack(Ack(batch: 1, first: 1, count: 0)), .ops([]), .leave(bob)] {
            let transcript = harness.send(message, from: connection)
            #expect(transcript.errors(to: connection).map(\.code) == [.unknownMessageType])
            #expect(transcript.closes(of: connection).isEmpty)
        }
    }

    @Test func undecodableInputGetsItsDecodersCodeAndAConnectionThatKeepsSendingItIsClosed() throws {
        var configuration = ServerConfiguration()
        configuration.limits.refusedMessageAllowance = 3
        let harness = try ServerHarness(configuration: configuration)
        let (connection, _) = harness.join(alice, as: "alice")
        let (peer, _) = harness.join(bob, as: "bob")
        harness.send(.presence(Presence(replica: alice, user: ServerHarness.user("alice"))), from: connection)
        for _ in 0..<3 {
            let transcript = harness.refuse(DecodeError(.truncated, "cut short"), from: connection)
            #expect(transcript.errors(to: connection).map(\.code) == [.truncated])
            #expect(transcript.closes(of: connection).isEmpty)
        }
        let last = harness.refuse(DecodeError(.invalidJSON, "not JSON"), from: connection)
        #expect(last.errors(to: connection).map(\.code) == [.invalidJSON, .invalidJSON])
        #expect(last.errors(to: connection).map(\.fatal) == [false, true])
        #expect(last.closes(of: connection) == [.tooManyInvalid])
        #expect(last.messages(to: peer) == [.leave(alice)])
    }

    @Test func aRoomWhoseStorageFailsClosesEveryoneAndTheNextJoinLoadsAgain() throws {
        let harness = try ServerHarness()
        let (author, _) = harness.join(alice, as: "alice")
        let (onlooker, _) = harness.join(bob, as: "bob")
        harness.pushCommitted([F.createStar()], from: author)
        harness.storage.failure = StorageFailure(.unavailable, "disk full at /var/lib/easel.db, SQLite code 13")
        harness.push([F.moveStar(2)], from: author)
        let failed = harness.commit()
        for connection in [author, onlooker] {
            #expect(failed.errors(to: connection).map(\.code) == [.storageFailed])
            // The plain reason, never the detail: that is for the operator's log.
            let said = failed.errors(to: connection).map(\.message).joined()
            #expect(said.contains("the store is unavailable") && !said.contains("SQLite") && !said.contains("/var"))
            #expect(failed.closes(of: connection) == [.storageFailed])
            #expect(!failed.messages(to: connection).contains { if case .ack = $0 { true } else { false } })
        }

        harness.storage.failure = nil
        let (again, rejoined) = harness.join(alice, as: "alice")
        #expect(rejoined.outputs.contains(.load(harness.document)))
        #expect(try #require(rejoined.welcome(to: again)).position == 1)
    }

    @Test func aRoomWhoseHistoryFailsToLoadClosesTheWaitingClients() throws {
        let harness = try ServerHarness()
        harness.storage.failure = StorageFailure(.corrupt, "unreadable")
        let (connection, transcript) = harness.join(alice, as: "alice")
        #expect(transcript.errors(to: connection).map(\.code) == [.storageFailed])
        #expect(transcript.closes(of: connection) == [.storageFailed])
    }

    @Test func anEmptyRoomUnloadsAWhileAfterItsLastConnectionLeftAndItsLastCommit() throws {
        let harness = try ServerHarness()
        let (connection, _) = harness.join(alice, as: "alice")
        harness.push([RoomFixtures.createStar()], from: connection)
        harness.close(connection)
        #expect(!harness.advance(by: 60_000).outputs.contains { if case .unloaded = $0 { true } else { false } })
        harness.commit()
        #expect(!harness.advance(by: 29_999).outputs.contains { if case .unloaded = $0 { true } else { false } })
        #expect(harness.advance(by: 1).outputs == [.unloaded(harness.document, head: 1)])
        #expect(harness.server.openDocuments.isEmpty)
        #expect(harness.storage.unloads.map(\.document) == [harness.document], "the unload reached storage")
        #expect(harness.storage.unloads.map(\.head) == [1])
    }

    @Test func aClientReconnectingBeforeTheRoomUnloadsResumesWithATail() throws {
        let harness = try ServerHarness()
        let (connection, joined) = harness.join(alice, as: "alice")
        let epoch = try #require(joined.welcome(to: connection)).epoch
        harness.pushCommitted([RoomFixtures.createStar(), RoomFixtures.moveStar(2)], from: connection)
        harness.close(connection)
        harness.advance(by: 10_000)
        harness.storage.snapshotAndCompact(harness.document.rawValue)
        let (again, rejoined) = harness.join(alice, as: "alice", since: ResumePoint(position: 1, epoch: epoch))
        #expect(
            try #require(rejoined.welcome(to: again)).content
                == .tail([PositionedOp(position: 2, op: RoomFixtures.moveStar(2))]))
    }
}
