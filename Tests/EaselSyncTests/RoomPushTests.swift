import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

@Suite("Room: pushes")
struct RoomPushTests {
    typealias F = RoomFixtures

    /// A room where alice's star and stroke are committed, alice and bob joined.
    func room() throws -> (ServerHarness, alice: ConnectionID, bob: ConnectionID) {
        let harness = try ServerHarness()
        let (aliceConnection, _) = harness.join(alice, as: "alice")
        let (bobConnection, _) = harness.join(bob, as: "bob")
        harness.pushCommitted([F.createStar(), F.createStroke(), F.append(3, at: 0)], from: aliceConnection)
        return (harness, aliceConnection, bobConnection)
    }

    /// Pushes ops that must be refused with `code`, and checks that nothing
    /// was stored, acknowledged or broadcast and the connection stays.
    func expectRefusal(_ code: ErrorCode, pushing ops: [Op], fromBob: Bool = false) throws {
        let (harness, aliceConnection, bobConnection) = try room()
        let (connection, other) = fromBob ? (bobConnection, aliceConnection) : (aliceConnection, bobConnection)
        let transcript = harness.push(ops, batch: 9, from: connection)
        let errors = transcript.errors(to: connection)
        #expect(errors.map(\.code) == [code])
        #expect(errors.map(\.batch) == [9])
        #expect(errors.allSatisfy { !$0.fatal })
        #expect(transcript.appended.isEmpty)
        #expect(transcript.closes(of: connection).isEmpty)
        #expect(harness.commit().messages(to: other).isEmpty)
        #expect(harness.storage.history(of: harness.document.rawValue).head == 3)
    }

    @Test func thePushesOfOneTurnGoToStorageAsOneAppendWhoseCommitAcknowledgesEachInOrder() throws {
        let (harness, aliceConnection, bobConnection) = try room()
        let turn = harness.sendInOneTurn([
            (.push(Push(batch: 1, ops: [F.moveStar(10)])), from: aliceConnection),
            (.push(Push(batch: 2, ops: [F.moveStar(20, by: bob), F.moveStar(21, by: bob)])), from: bobConnection),
            // Only a resend: nothing to store, acknowledged in its turn.
            (.push(Push(batch: 3, ops: [F.moveStar(10)])), from: aliceConnection),
            (.push(Push(batch: 4, ops: [F.moveStar(11)])), from: aliceConnection),
        ])
        let appends = turn.outputs.filter { if case .append = $0 { true } else { false } }
        #expect(appends.count == 1)
        #expect(turn.appended.map(\.position) == [4, 5, 6, 7])
        #expect(turn.messages(to: aliceConnection).isEmpty)

        let commit = harness.commit()
        let acks = { (connection: ConnectionID) in
            commit.messages(to: connection).compactMap { if case .ack(let ack) = $0 { ack } else { nil } }
        }
        #expect(
            acks(aliceConnection) == [
                Ack(batch: 1, first: 4, count: 1), Ack(batch: 3, first: 7, count: 0), Ack(batch: 4, first: 7, count: 1),
            ])
        #expect(acks(bobConnection) == [Ack(batch: 2, first: 5, count: 2)])
        #expect(harness.storage.history(of: harness.document.rawValue).head == 7)
    }

    @Test func outputsTakenWithinATurnLeaveItsPushesForOneAppendWhenTheTurnEnds() throws {
        let (harness, aliceConnection, _) = try room()
        var outputs: [ServerOutput] = []
        for (batch, counter) in [(UInt64(1), UInt64(10)), (2, 11)] {
            harness.server.receive(
                .push(Push(batch: batch, ops: [F.moveStar(counter)])), from: aliceConnection, at: harness.now)
            harness.server.takeOutputs(into: &outputs, handingOverAppends: false)
            #expect(outputs.isEmpty)
        }
        let end = harness.sendInOneTurn([])
        #expect(end.outputs.filter { if case .append = $0 { true } else { false } }.count == 1)
        #expect(end.appended.map(\.position) == [4, 5])
        let acks = harness.commit().messages(to: aliceConnection)
        #expect(acks == [.ack(Ack(batch: 1, first: 4, count: 1)), .ack(Ack(batch: 2, first: 5, count: 1))])
    }

    @Test func aTurnsAppendThatFailsClosesTheRoomAndAcknowledgesNoneOfItsPushes() throws {
        let (harness, aliceConnection, bobConnection) = try room()
        harness.sendInOneTurn([
            (.push(Push(batch: 1, ops: [F.moveStar(10)])), from: aliceConnection),
            (.push(Push(batch: 2, ops: [F.moveStar(20, by: bob)])), from: bobConnection),
        ])
        harness.storage.failure = StorageFailure(.unavailable, "the disk is full")
        let commit = harness.commit()
        for connection in [aliceConnection, bobConnection] {
            #expect(!commit.messages(to: connection).contains { if case .ack = $0 { true } else { false } })
            #expect(commit.closes(of: connection) == [.storageFailed])
        }
    }

    @Test func anOpStampedWithAnotherReplicaThanTheConnectionsIsRefused() throws {
        try expectRefusal(.wrongReplica, pushing: [F.moveStar(10, by: carol)], fromBob: true)
    }

    @Test func anOpIDAlreadyCommittedWithOtherContentIsAConflict() throws {
        try expectRefusal(.opConflict, pushing: [op(1, alice, .create(.emoji, [.character("🌙")]))])
    }

    @Test func anOpIDStillBeingWrittenWithOtherContentIsAConflict() throws {
        let (harness, connection, _) = try room()
        harness.push([F.moveStar(10)], batch: 1, from: connection)
        let transcript = harness.push([F.moveStar(10, to: 99)], batch: 2, from: connection)
        #expect(transcript.errors(to: connection).map(\.code) == [.opConflict])
        #expect(transcript.errors(to: connection).map(\.batch) == [2])
    }

    @Test func anOpRepeatedWithinOnePushWithOtherContentIsAConflict() throws {
        try expectRefusal(.opConflict, pushing: [F.moveStar(10), F.moveStar(11), F.moveStar(10, to: 50)])
    }

    @Test func aCounterFarBeyondTheDocumentsHighestIsRefused() throws {
        try expectRefusal(.counterTooFar, pushing: [F.moveStar(3 + (1 << 24) + 1)])
    }

    @Test func aCounterWithinTheLeadIsAccepted() throws {
        let (harness, connection, _) = try room()
        let transcript = harness.pushCommitted([F.moveStar(3 + (1 << 24))], from: connection)
        #expect(transcript.messages(to: connection) == [.ack(Ack(batch: 1, first: 4, count: 1))])
    }

    @Test func anOpOnAnEntityTheDocumentNeverHadIsRefused() throws {
        try expectRefusal(.unknownEntity, pushing: [op(10, bob, .set(EntityID(opID(99, carol)), .x(1)))], fromBob: true)
    }

    @Test func aFieldTheEntitysKindDoesNotHaveIsRefused() throws {
        try expectRefusal(.fieldNotInKind, pushing: [op(10, alice, .set(F.star, .font("Georgia")))])
    }

    @Test func samplesAppendedToAnEntityThatIsNotAStrokeAreRefused() throws {
        try expectRefusal(
            .fieldNotInKind, pushing: [op(10, alice, .append(F.star, start: 0, samples: [sample(0, 0, 0)]))])
    }

    @Test func onlyAStrokesAuthorMayAppendToIt() throws {
        try expectRefusal(.notStrokeAuthor, pushing: [F.append(10, by: bob, at: 1)], fromBob: true)
    }

    @Test func differentSamplesAtAnIndexAlreadyWrittenAreRefused() throws {
        try expectRefusal(.appendConflict, pushing: [F.append(10, at: 0, x: 7)])
    }

    @Test func anAppendThatOverlapsAcceptedSamplesAndContradictsOneIsRefusedWhole() throws {
        // The room holds sample 0 (x 1); this chunk repeats it, then
        // contradicts nothing yet, but its own pending twin says otherwise.
        let (harness, connection, _) = try room()
        let pending = op(10, alice, .append(F.stroke, start: 1, samples: [sample(2, 0, 0), sample(3, 0, 0)]))
        harness.push([pending], batch: 1, from: connection)
        let overlap = op(
            11, alice, .append(F.stroke, start: 0, samples: [sample(1, 0, 0), sample(2, 0, 0), sample(9, 0, 0)]))
        let transcript = harness.push([overlap], batch: 2, from: connection)
        #expect(transcript.errors(to: connection).map(\.code) == [.appendConflict])
        #expect(transcript.errors(to: connection).map(\.batch) == [2])
        #expect(transcript.errors(to: connection).first?.message.contains("index 2") == true)
    }

    @Test func anAppendThatRepeatsAndExtendsAcceptedSamplesIsAccepted() throws {
        let (harness, connection, other) = try room()
        let extending = op(10, alice, .append(F.stroke, start: 0, samples: [sample(1, 0, 0), sample(2, 0, 0)]))
        let transcript = harness.pushCommitted([extending], batch: 4, from: connection)
        #expect(transcript.messages(to: connection) == [.ack(Ack(batch: 4, first: 4, count: 1))])
        #expect(transcript.messages(to: other) == [.ops([PositionedOp(position: 4, op: extending)])])
        let stroke = harness.storage.history(of: harness.document.rawValue).document()[F.stroke]
        guard case .stroke(let content)? = stroke?.content else {
            Issue.record("no stroke")
            return
        }
        #expect(content.samples.map(\.x) == [1, 2])
    }

    @Test(arguments: WireEncoding.allCases)
    func aPushTheDecoderRefusesIsRefusedWithItsBatch(encoding: WireEncoding) throws {
        let (harness, connection, _) = try room()
        let ops = (0..<4097).map { F.moveStar(UInt64(10 + $0)) }
        let bytes = Message.push(Push(batch: 42, ops: ops)).encoded(as: encoding)
        do {
            _ = try Message(decoding: bytes, as: encoding)
            Issue.record("4097 ops decoded")
        } catch {
            let errors = harness.refuse(error, from: connection).errors(to: connection)
            #expect(errors.map(\.code) == [.tooLarge])
            #expect(errors.map(\.batch) == [42])
            #expect(errors.allSatisfy { !$0.fatal })
        }
    }

    @Test func anAppendPastAGapIsAcknowledgedAndBroadcastLikeAnyOther() throws {
        let (harness, connection, other) = try room()
        let ahead = op(10, alice, .append(F.stroke, start: 5, samples: [sample(5, 0, 0)]))
        let transcript = harness.pushCommitted([ahead], batch: 4, from: connection)
        #expect(transcript.messages(to: connection) == [.ack(Ack(batch: 4, first: 4, count: 1))])
        #expect(transcript.messages(to: other) == [.ops([PositionedOp(position: 4, op: ahead)])])
    }

    @Test func theServerEchoesWhateverBatchAPushCarriesEvenOneStillUnacknowledged() throws {
        let (harness, connection, _) = try room()
        harness.push([F.moveStar(10)], batch: 8, from: connection)
        harness.push([F.moveStar(11)], batch: 8, from: connection)
        #expect(
            harness.commit().messages(to: connection) == [
                .ack(Ack(batch: 8, first: 4, count: 1)), .ack(Ack(batch: 8, first: 5, count: 1)),
            ])
    }

    @Test func anOpRepeatedWithinOnePushWithTheSameContentIsAResendTakingNoPosition() throws {
        let (harness, connection, other) = try room()
        let transcript = harness.pushCommitted([F.moveStar(10), F.moveStar(11), F.moveStar(10)], from: connection)
        #expect(transcript.messages(to: connection) == [.ack(Ack(batch: 1, first: 4, count: 2))])
        #expect(
            transcript.messages(to: other) == [
                .ops([PositionedOp(position: 4, op: F.moveStar(10)), PositionedOp(position: 5, op: F.moveStar(11))])
            ])
    }

    @Test func aRefusedPushLeavesNoTraceAndTheNextPushContinuesTheLog() throws {
        let (harness, connection, other) = try room()
        // The create would pass on its own; the set after it does not.
        let refused = harness.push(
            [op(10, alice, .create(.emoji, [.character("🌙")])), op(11, alice, .set(F.star, .font("x")))], batch: 1,
            from: connection)
        #expect(refused.errors(to: connection).map(\.code) == [.fieldNotInKind])
        // The refused create is unknown: an op on it is refused too.
        let dependent = harness.push(
            [op(12, alice, .set(EntityID(opID(10, alice)), .x(1)))], batch: 2, from: connection)
        #expect(dependent.errors(to: connection).map(\.code) == [.unknownEntity])

        let accepted = harness.pushCommitted([F.moveStar(13)], batch: 3, from: connection)
        #expect(accepted.messages(to: connection) == [.ack(Ack(batch: 3, first: 4, count: 1))])
        #expect(accepted.messages(to: other) == [.ops([PositionedOp(position: 4, op: F.moveStar(13))])])
    }

    @Test func opsOnAnEntityCreatedEarlierInTheSamePushOrStillBeingWrittenAreAccepted() throws {
        let (harness, connection, _) = try room()
        let moon = EntityID(opID(10, alice))
        harness.push(
            [op(10, alice, .create(.text, [.text("hi")])), op(11, alice, .set(moon, .font("Georgia")))], batch: 1,
            from: connection)
        let second = harness.push([op(12, alice, .set(moon, .size(30)))], batch: 2, from: connection)
        #expect(second.errors(to: connection).isEmpty)
        #expect(
            harness.commit().messages(to: connection) == [
                .ack(Ack(batch: 1, first: 4, count: 2)), .ack(Ack(batch: 2, first: 6, count: 1)),
            ])
    }

    @Test func nothingIsAcknowledgedBroadcastOrWelcomedBeforeStorageCommitsIt() throws {
        let (harness, connection, other) = try room()
        let pushed = harness.push([F.moveStar(10)], from: connection)
        #expect(pushed.appended.map(\.position) == [4])
        #expect(pushed.messages(to: connection).isEmpty)
        #expect(pushed.messages(to: other).isEmpty)

        let (newcomer, joined) = harness.join(carol, as: "carol")
        #expect(try #require(joined.welcome(to: newcomer)).position == 3)

        let committed = harness.commit()
        #expect(committed.messages(to: connection) == [.ack(Ack(batch: 1, first: 4, count: 1))])
        #expect(committed.messages(to: other) == [.ops([PositionedOp(position: 4, op: F.moveStar(10))])])
        #expect(committed.messages(to: newcomer) == [.ops([PositionedOp(position: 4, op: F.moveStar(10))])])
    }

    @Test func storedOpsRecordTheirAuthorAndWhenTheServerReceivedThem() throws {
        let (harness, connection, _) = try room()
        harness.now = Timestamp(milliseconds: 1_800_000_000_123)
        let logged = harness.push([F.moveStar(10)], from: connection).appended
        #expect(logged == [LoggedOp(position: 4, op: F.moveStar(10), author: "alice", receivedAt: 1_800_000_000_123)])
    }

    @Test func aResendIsAcknowledgedWithoutANewPositionOrABroadcast() throws {
        let (harness, connection, other) = try room()
        harness.close(connection)
        let (again, _) = harness.join(alice, as: "alice")
        let resend = harness.push([F.createStroke(), F.append(3, at: 0), F.moveStar(10)], batch: 5, from: again)
        #expect(resend.appended.map(\.op) == [F.moveStar(10)])
        let committed = harness.commit()
        #expect(committed.messages(to: again) == [.ack(Ack(batch: 5, first: 4, count: 1))])
        #expect(committed.messages(to: other) == [.ops([PositionedOp(position: 4, op: F.moveStar(10))])])

        let onlyResends = harness.push([F.moveStar(10)], batch: 6, from: again)
        #expect(onlyResends.appended.isEmpty)
        #expect(onlyResends.messages(to: again) == [.ack(Ack(batch: 6, first: 5, count: 0))])
        #expect(onlyResends.messages(to: other).isEmpty)
    }

    @Test func aResendOfOpsStillBeingWrittenIsAcknowledgedOnlyOnceTheyAreDurable() throws {
        let (harness, stale, _) = try room()
        harness.push([F.moveStar(10)], batch: 1, from: stale)
        harness.close(stale)
        let (again, _) = harness.join(alice, as: "alice")
        let resend = harness.push([F.moveStar(10)], batch: 1, from: again)
        #expect(resend.appended.isEmpty)
        #expect(resend.messages(to: again).isEmpty)
        #expect(harness.commit().messages(to: again) == [.ack(Ack(batch: 1, first: 5, count: 0))])
    }

    @Test func aResendBelowACompactedHighWaterMarkIsADuplicate() throws {
        var configuration = ServerConfiguration()
        configuration.retainedOps = 1
        let harness = try ServerHarness(configuration: configuration)
        let (connection, _) = harness.join(alice, as: "alice")
        harness.pushCommitted([F.createStar()] + (2...6).map { F.moveStar($0) }, from: connection)
        // Op 2 is no longer retained; its counter is below alice's high-water mark.
        let resend = harness.push([F.moveStar(2)], batch: 2, from: connection)
        #expect(resend.appended.isEmpty)
        #expect(resend.messages(to: connection) == [.ack(Ack(batch: 2, first: 7, count: 0))])
    }
}
