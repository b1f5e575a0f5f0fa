import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// Questions an outside implementer found the spec left open about the
/// server's rules, each settled in Protocol/README.md by what the sans-IO
/// server does, and pinned here.
@Suite("Spec answers: the room and the server")
struct SpecAnswersRoomTests {
    // MARK: Question 1: fit and the document belong to every version (section 6.6)

    @Test("a version-1 connection may push fit on the document, and version-1 peers get it unchanged in ops and in a welcome")
    func backgroundsReachVersionOne() throws {
        let harness = try ServerHarness()
        let (author, _) = harness.join(alice, as: "alice", protocol: 1)
        let (watcher, _) = harness.join(bob, as: "bob", protocol: 1)
        let transaction = TransactionID(opID(1, alice))
        let background = [
            Op(id: opID(1, alice), transaction: transaction, action: .set(.document, .fill(Color(rawValue: 0xFAF4_E6FF)))),
            Op(id: opID(2, alice), transaction: transaction, action: .set(.document, .fit(.cover))),
        ]
        let committed = harness.pushCommitted(background, from: author)
        #expect(committed.messages(to: author) == [.ack(Ack(batch: 1, first: 1, count: 2))])
        #expect(
            committed.messages(to: watcher)
                == [.ops([PositionedOp(position: 1, op: background[0]), PositionedOp(position: 2, op: background[1])])])

        let (late, joined) = harness.join(carol, as: "carol", protocol: 1)
        let welcome = try #require(joined.welcome(to: late))
        #expect(welcome.protocolVersion == 1)
        guard case .snapshot(let ops) = welcome.content else {
            Issue.record("a client with no copy gets a snapshot, not \(welcome.content)")
            return
        }
        // A snapshot's ops are each their own transaction.
        let expected = background.map { Op(id: $0.id, transaction: TransactionID($0.id), action: $0.action) }
        #expect(Set(ops) == Set(expected))
    }

    // MARK: Question 4: what the server does with the hello's protocol (sections 2.1, 6.6)

    @Test("a hello of protocol 2^32 − 1 is welcomed in version 4; protocol 0 is 202, fatal, close 4000")
    func protocolZeroIsRefusedAndAnyOtherIsMet() throws {
        let harness = try ServerHarness()
        let (high, welcomed) = harness.join(alice, as: "alice", protocol: UInt32.max)
        #expect(try #require(welcomed.welcome(to: high)).protocolVersion == WireProtocol.version)
        let (zero, refused) = harness.join(bob, as: "bob", protocol: 0)
        #expect(refused.errors(to: zero).map(\.code) == [.unsupportedProtocol])
        #expect(refused.errors(to: zero).map(\.fatal) == [true])
        #expect(refused.closes(of: zero) == [.fatalError])
        #expect(refused.welcome(to: zero) == nil)
    }

    @Test("protocol 0 is checked after the token: a hello with protocol 0 and a refused token gets 300, not 202")
    func protocolZeroIsCheckedAfterTheToken() throws {
        let harness = try ServerHarness(authenticate: { _, _ in
            .failure(AuthenticationRefusal(code: .unauthorized, message: "no token"))
        })
        let (connection, transcript) = harness.join(alice, as: "alice", protocol: 0)
        #expect(transcript.errors(to: connection).map(\.code) == [.unauthorized])
        #expect(transcript.closes(of: connection) == [.refused])
    }

    // MARK: Question 5: a takeover by a connection that never shares presence (section 2.7)

    @Test("a connection that takes a replica over inherits its presence: a newcomer is shown it, and its end sends the replica's leave even if it never shared presence")
    func aTakeoverInheritsThePresenceAndItsEndLeaves() throws {
        let harness = try ServerHarness()
        let (stale, _) = harness.join(alice, as: "alice")
        let (watcher, _) = harness.join(bob, as: "bob")
        let presence = Presence(replica: alice, user: ServerHarness.user("alice"), cursor: Point(x: 3, y: 4))
        #expect(harness.send(.presence(presence), from: stale).messages(to: watcher) == [.presence(presence)])

        let (fresh, takeover) = harness.join(alice, as: "alice")
        #expect(takeover.closes(of: stale) == [.replaced])
        var toWatcher = takeover.messages(to: watcher)
        toWatcher += harness.close(stale).messages(to: watcher)
        #expect(toWatcher.isEmpty, "the replica stays: no leave for the old connection")
        let (newcomer, joined) = harness.join(carol, as: "carol")
        #expect(try #require(joined.welcome(to: newcomer)).peers.contains(presence))
        // The connection that took over ends without ever sharing presence.
        #expect(harness.close(fresh).messages(to: watcher) == [.leave(alice)], "no ghost of alice stays with bob")
    }

    @Test("once the connection that took a replica over shares presence, its end sends the replica's leave")
    func aTakeoverThatSharesPresenceLeaves() throws {
        let harness = try ServerHarness()
        let (stale, _) = harness.join(alice, as: "alice")
        let (watcher, _) = harness.join(bob, as: "bob")
        harness.send(.presence(Presence(replica: alice, user: ServerHarness.user("alice"))), from: stale)
        let (fresh, _) = harness.join(alice, as: "alice")
        harness.close(stale)
        let moved = Presence(replica: alice, user: ServerHarness.user("alice"), cursor: Point(x: 9, y: 9))
        #expect(harness.send(.presence(moved), from: fresh).messages(to: watcher) == [.presence(moved)])
        #expect(harness.close(fresh).messages(to: watcher) == [.leave(alice)])
    }

    // MARK: Question 6: state sent on a version-1 connection (sections 2.6, 6.6)

    @Test("state sent on a version-1 connection is relayed whole to version-2+ peers, without state to version-1 peers, and kept for welcomes")
    func stateFromAVersionOneConnectionIsRelayed() throws {
        let harness = try ServerHarness()
        let (sender, _) = harness.join(alice, as: "alice", protocol: 1)
        let (older, _) = harness.join(bob, as: "bob", protocol: 1)
        let (newer, _) = harness.join(carol, as: "carol", protocol: 2)
        let state = PresenceState(position: 0, hash: StateHash(rawValue: 0x5773_816A_EF0F_F8E7))
        let presence = Presence(replica: alice, user: ServerHarness.user("alice"), state: state)
        var withoutState = presence
        withoutState.state = nil

        let relayed = harness.send(.presence(presence), from: sender)
        #expect(relayed.errors(to: sender).isEmpty)
        #expect(relayed.messages(to: newer) == [.presence(presence)])
        #expect(relayed.messages(to: older) == [.presence(withoutState)])

        let (lateNewer, newerJoined) = harness.join(ReplicaID(rawValue: 0xD0), as: "dave", protocol: 3)
        #expect(try #require(newerJoined.welcome(to: lateNewer)).peers == [presence])
        let (lateOlder, olderJoined) = harness.join(ReplicaID(rawValue: 0xE0), as: "erin", protocol: 1)
        #expect(try #require(olderJoined.welcome(to: lateOlder)).peers == [withoutState])
    }

    // MARK: Question 7: server-only messages from a client (sections 6.1, 6.6)

    static let serverOnly: [Message] = [
        .welcome(Welcome(epoch: Epoch(rawValue: 1), position: 0, content: .tail([]))),
        .ack(Ack(batch: 1, first: 1, count: 0)),
        .ops([]),
        .leave(bob),
    ]

    @Test("a server-only message (welcome, ack, ops, leave) before hello is 200, fatal, close 4000", arguments: Self.serverOnly)
    func aServerOnlyMessageBeforeHelloIsNotJoined(message: Message) throws {
        let harness = try ServerHarness()
        let connection = harness.connect()
        let transcript = harness.send(message, from: connection)
        #expect(transcript.errors(to: connection).map(\.code) == [.notJoined])
        #expect(transcript.errors(to: connection).map(\.fatal) == [true])
        #expect(transcript.closes(of: connection) == [.fatalError])
    }

    @Test(
        "a server-only message (welcome, ack, ops, leave) after hello is 104, not fatal, and the connection stays",
        arguments: Self.serverOnly)
    func aServerOnlyMessageAfterHelloIsUnknown(message: Message) throws {
        let harness = try ServerHarness()
        let (connection, _) = harness.join(alice, as: "alice")
        let transcript = harness.send(message, from: connection)
        #expect(transcript.errors(to: connection).map(\.code) == [.unknownMessageType])
        #expect(transcript.errors(to: connection).map(\.fatal) == [false])
        #expect(transcript.closes(of: connection).isEmpty)
        #expect(harness.send(.ping(nonce: 9), from: connection).messages(to: connection) == [.pong(nonce: 9)])
    }

    // MARK: Question 10: the 1 MiB limit binds the server's own messages (section 8)

    @Test(
        "an ops delivery over 1 MiB in the connection's encoding goes out as several ops messages, each within 1 MiB, in position order",
        arguments: WireEncoding.allCases)
    func opsOverAMebibyteAreSplit(encoding: WireEncoding) throws {
        let text = String(repeating: "a", count: 16_000)
        let ops = (1...100).map {
            PositionedOp(position: UInt64($0) * 2, op: op(UInt64($0), alice, .create(.text, [.text(text)])))
        }
        #expect(Message.ops(ops).encoded(as: encoding).count > ProtocolLimits.messageBytes)
        let frames = Message.ops(ops).wireFrames(as: encoding)
        #expect(frames.count > 1)
        #expect(frames.allSatisfy { $0.count <= ProtocolLimits.messageBytes })
        let pieces = try frames.map { try Message(decoding: $0, as: encoding) }
        let rejoined = pieces.flatMap { message -> [PositionedOp] in
            guard case .ops(let ops) = message else { return [] }
            return ops
        }
        #expect(rejoined == ops)
    }

    @Test("a binary snapshot welcome over 1 MiB goes out as chunks within 1 MiB, all but the last marked more, peers in the last")
    func aSnapshotOverAMebibyteIsChunked() throws {
        let text = String(repeating: "b", count: 16_000)
        let snapshot = (1...100).map { op(UInt64($0), alice, .create(.text, [.text(text)])) }
        let peer = Presence(replica: carol, user: UserInfo(name: "carol", initials: "C", color: .black))
        let welcome = Welcome(epoch: Epoch(rawValue: 3), position: 100, content: .snapshot(snapshot), peers: [peer])
        let frames = Message.welcome(welcome).wireFrames(as: .binary)
        #expect(frames.count > 1)
        #expect(frames.allSatisfy { $0.count <= ProtocolLimits.messageBytes })
        let chunks: [Welcome?] = try frames.map { frame in
            guard case .welcome(let chunk) = try Message(binary: frame) else { return nil }
            return chunk
        }
        #expect(chunks.dropLast().allSatisfy { $0?.more == true && $0?.peers.isEmpty == true })
        #expect(chunks.last??.more == false)
        #expect(chunks.last??.peers == [peer])
        let rejoined = chunks.flatMap { chunk -> [Op] in
            guard case .snapshot(let ops)? = chunk?.content else { return [] }
            return ops
        }
        #expect(rejoined == snapshot)
    }

    @Test("a presence at every limit at once stays one message, under 100 kB, in both encodings")
    func theLargestPresenceNeedsNoSplitting() throws {
        let far = EntityID(OpID(counter: .max, replica: ReplicaID(rawValue: .max)))
        let many = Array(repeating: far, count: ProtocolLimits.entitiesInPresence)
        let user = UserInfo(
            name: String(repeating: "\u{1}", count: ProtocolLimits.userNameBytes),
            initials: String(repeating: "\u{1}", count: ProtocolLimits.initialsBytes), color: .black)
        let presence = Presence(
            replica: alice, user: user, cursor: Point(x: 1, y: 2),
            viewport: VisibleArea(x: 0, y: 0, width: 800, height: 600), selection: many,
            gesture: .moving(many, by: Vector(dx: 1, dy: 2)), idle: true,
            state: PresenceState(position: .max, hash: StateHash(rawValue: .max)))
        let message = Message.presence(presence)
        try message.validate()
        for encoding in WireEncoding.allCases {
            #expect(message.wireFrames(as: encoding).count == 1, "\(encoding)")
            #expect(message.encoded(as: encoding).count < 100_000, "\(encoding)")
        }
    }

    // MARK: Question 11: the refusal budget's timing (sections 7, 8)

    @Test("the refusal budget is full when the connection opens: 16 refusals before hello pass; the 17th is answered, then its code again fatal without a batch, then 4001")
    func theBudgetIsFullFromTheStart() throws {
        let harness = try ServerHarness()
        let connection = harness.connect()
        var refusal = DecodeError(.invalidValue, "bad")
        refusal.batch = 7
        for index in 0..<16 {
            let transcript = harness.refuse(refusal, from: connection)
            #expect(transcript.errors(to: connection).map(\.fatal) == [false], "refusal \(index + 1)")
            #expect(transcript.closes(of: connection).isEmpty, "refusal \(index + 1)")
        }
        let last = harness.refuse(refusal, from: connection)
        let errors = last.errors(to: connection)
        #expect(errors.map(\.code) == [.invalidValue, .invalidValue])
        #expect(errors.map(\.fatal) == [false, true])
        #expect(errors.map(\.batch) == [7, nil])
        #expect(last.closes(of: connection) == [.tooManyInvalid])
        #expect(harness.send(.ping(nonce: 1), from: connection).messages(to: connection).isEmpty, "what follows is ignored")
    }

    @Test(
        "the budget refills at one refusal per 1000 ms, to the millisecond: 999 ms after it emptied the next refusal closes, 1000 ms after it does not",
        arguments: [(Int64(999), true), (Int64(1000), false)])
    func theBudgetRefillsOneASecond(wait: Int64, closes: Bool) throws {
        let harness = try ServerHarness()
        let (connection, _) = harness.join(alice, as: "alice")
        for _ in 0..<16 { harness.refuse(DecodeError(.truncated, "cut short"), from: connection) }
        harness.now = harness.now + wait
        let transcript = harness.refuse(DecodeError(.truncated, "cut short"), from: connection)
        let expected: [CloseCode] = closes ? [.tooManyInvalid] : []
        #expect(transcript.closes(of: connection) == expected)
    }

    @Test("fractions of a second add up: emptied at 0 ms, a refusal at 1500 ms and another at 2000 ms pass, a third at 2000 ms closes")
    func theBudgetRefillsContinuously() throws {
        let harness = try ServerHarness()
        let (connection, _) = harness.join(alice, as: "alice")
        let start = harness.now
        for _ in 0..<16 { harness.refuse(DecodeError(.truncated, "cut short"), from: connection) }
        harness.now = start + 1500
        #expect(harness.refuse(DecodeError(.truncated, "cut short"), from: connection).closes(of: connection).isEmpty)
        harness.now = start + 2000
        #expect(harness.refuse(DecodeError(.truncated, "cut short"), from: connection).closes(of: connection).isEmpty)
        let third = harness.refuse(DecodeError(.truncated, "cut short"), from: connection)
        #expect(third.closes(of: connection) == [.tooManyInvalid])
    }

    @Test("the budget never holds more than 16: after a minute without refusals, the 17th refusal at once still closes")
    func theBudgetIsCappedAtSixteen() throws {
        let harness = try ServerHarness()
        let (connection, _) = harness.join(alice, as: "alice")
        harness.now = harness.now + 60_000
        for index in 0..<16 {
            let transcript = harness.refuse(DecodeError(.truncated, "cut short"), from: connection)
            #expect(transcript.closes(of: connection).isEmpty, "refusal \(index + 1)")
        }
        let last = harness.refuse(DecodeError(.truncated, "cut short"), from: connection)
        #expect(last.closes(of: connection) == [.tooManyInvalid])
    }
}
