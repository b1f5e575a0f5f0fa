import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

@Suite("Messages cut to the wire's limits")
struct WireFramesTests {
    func decoded(_ frames: [[UInt8]], as encoding: WireEncoding) throws -> [Message] {
        try frames.map { try Message(decoding: $0, as: encoding) }
    }

    @Test func anOpsMessageWithMoreOpsThanOneMessageMayCarryGoesOutInPiecesThatTogetherAreTheWhole() throws {
        let ops = (1...70_000).map {
            PositionedOp(position: UInt64($0), op: op(UInt64($0), alice, .delete(EntityID(opID(1, bob)))))
        }
        let frames = Message.ops(ops).wireFrames(as: .binary)
        let pieces = try decoded(frames, as: .binary)
        #expect(pieces.count > 1)
        #expect(frames.allSatisfy { $0.count <= ProtocolLimits.messageBytes })
        let rejoined = pieces.flatMap { message -> [PositionedOp] in
            guard case .ops(let ops) = message else { return [] }
            #expect(ops.count <= ProtocolLimits.opsPerMessage)
            return ops
        }
        #expect(rejoined == ops)
    }

    @Test func aWelcomeOverTheByteLimitGoesOutInChunksMarkedMoreThatAClientReassembles() throws {
        let long = String(repeating: "ü", count: 8_000)
        let snapshot = (1...300).map { op(UInt64($0), alice, .create(.text, [.text(long)])) }
        let peer = Presence(replica: carol, user: UserInfo(name: "carol", initials: "C", color: .black))
        let welcome = Welcome(epoch: Epoch(rawValue: 9), position: 300, content: .snapshot(snapshot), peers: [peer])
        let frames = Message.welcome(welcome).wireFrames(as: .json)
        #expect(frames.count > 1)
        #expect(frames.allSatisfy { $0.count <= ProtocolLimits.messageBytes })
        let chunks = try decoded(frames, as: .json).compactMap {
            if case .welcome(let chunk) = $0 { chunk } else { nil }
        }
        #expect(chunks.count == frames.count)
        #expect(chunks.dropLast().allSatisfy { $0.more && $0.peers.isEmpty })
        #expect(chunks.last?.more == false)
        #expect(chunks.last?.peers == [peer])
        #expect(chunks.allSatisfy { $0.position == 300 && $0.epoch == Epoch(rawValue: 9) })

        var client = SyncClient(
            document: try DocumentName("boards/one"), user: UserInfo(name: "bob", initials: "B", color: .black),
            replica: bob, at: Timestamp(milliseconds: 0))
        client.connectionOpened(at: Timestamp(milliseconds: 0))
        for chunk in chunks.dropLast() {
            client.receive(.welcome(chunk), at: Timestamp(milliseconds: 0))
            #expect(client.connectionState == .connecting)
        }
        if let last = chunks.last { client.receive(.welcome(last), at: Timestamp(milliseconds: 0)) }
        #expect(client.connectionState == .connected)
        #expect(client.editor.document.stateHash == Document(applying: snapshot).stateHash)
        #expect(client.peers[carol] == peer)
    }

    @Test(
        "a welcome of many ops is cut by what its first ops weigh, every frame within the limits, even when later ops weigh more",
        arguments: [WireEncoding.binary, .json])
    func aWelcomeOfManyOpsIsCutByASampleAndStaysWithinTheLimits(encoding: WireEncoding) throws {
        // Light emoji first, then texts far heavier than the sample says.
        let light = (1...40_000).map { op(UInt64($0), alice, .create(.emoji, [.character("⭐️")])) }
        let heavy = (40_001...41_000).map {
            op(UInt64($0), alice, .create(.text, [.text(String(repeating: "é", count: 600))]))
        }
        let snapshot = light + heavy
        let welcome = Welcome(epoch: Epoch(rawValue: 2), position: 41_000, content: .snapshot(snapshot), peers: [])
        let frames = Message.welcome(welcome).wireFrames(as: encoding)
        #expect(frames.count > 1)
        #expect(frames.allSatisfy { $0.count <= ProtocolLimits.messageBytes })
        let chunks = try decoded(frames, as: encoding).compactMap {
            if case .welcome(let chunk) = $0 { chunk } else { nil }
        }
        let rejoined = chunks.flatMap { chunk -> [Op] in
            if case .snapshot(let ops) = chunk.content { ops } else { [] }
        }
        #expect(rejoined == snapshot)
        #expect(chunks.dropLast().allSatisfy(\.more) && chunks.last?.more == false)
    }
}
