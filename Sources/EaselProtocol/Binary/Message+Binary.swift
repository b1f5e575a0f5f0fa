import EaselModel

private enum HelloFlags {
    static let token: UInt8 = 0x01
    static let since: UInt8 = 0x02
    static let known: UInt8 = 0x03
}

private enum WelcomeFlags {
    static let snapshot: UInt8 = 0x01
    static let more: UInt8 = 0x02
    static let known: UInt8 = 0x03
}

private enum ErrorFlags {
    static let fatal: UInt8 = 0x01
    static let batch: UInt8 = 0x02
    static let known: UInt8 = 0x03
}

extension Message {
    /// The message in the binary encoding (Protocol/README.md, section 4).
    public func binaryEncoded() -> [UInt8] {
        var writer = ByteWriter(capacity: estimatedBinarySize)
        writer.byte(WireProtocol.frameVersion)
        writer.byte(type.rawValue)
        switch self {
        case .hello(let hello):
            writer.varint(hello.protocolVersion)
            writer.string(hello.document.rawValue)
            writer.uint64(hello.replica.rawValue)
            writer.byte((hello.token == nil ? 0 : HelloFlags.token) | (hello.since == nil ? 0 : HelloFlags.since))
            if let token = hello.token { writer.string(token) }
            if let since = hello.since {
                writer.varint(since.position)
                writer.uint64(since.epoch.rawValue)
            }
            writer.user(hello.user)
        case .welcome(let welcome):
            writer.varint(welcome.protocolVersion)
            writer.uint64(welcome.epoch.rawValue)
            writer.varint(welcome.position)
            switch welcome.content {
            case .snapshot(let ops):
                writer.byte(WelcomeFlags.snapshot | (welcome.more ? WelcomeFlags.more : 0))
                writer.opBatch(ops)
            case .tail(let ops):
                writer.byte(welcome.more ? WelcomeFlags.more : 0)
                writer.positionedOps(ops)
            }
            writer.varint(welcome.peers.count)
            for peer in welcome.peers { writer.presence(peer) }
        case .push(let push):
            writer.varint(push.batch)
            writer.opBatch(push.ops)
        case .ack(let ack):
            writer.varint(ack.batch)
            writer.varint(ack.first)
            writer.varint(ack.count)
        case .ops(let ops):
            writer.positionedOps(ops)
        case .presence(let presence):
            writer.presence(presence)
        case .leave(let replica):
            writer.uint64(replica.rawValue)
        case .error(let error):
            writer.varint(error.code.rawValue)
            writer.byte((error.fatal ? ErrorFlags.fatal : 0) | (error.batch == nil ? 0 : ErrorFlags.batch))
            if let batch = error.batch { writer.varint(batch) }
            writer.string(error.message)
        case .ping(let nonce), .pong(let nonce):
            writer.varint(nonce)
        }
        return writer.bytes
    }

    /// Enough for a batch of numeric sets without regrowing the buffer.
    private var estimatedBinarySize: Int {
        switch self {
        case .push(let push): 32 + push.ops.count * 8
        case .ops(let ops): 32 + ops.count * 10
        default: 64
        }
    }

    /// Decodes one binary message. Never traps, whatever the bytes; every
    /// failure is a `DecodeError` with the protocol's code.
    public init(binary bytes: UnsafeRawBufferPointer) throws(DecodeError) {
        var reader = BinaryReader(bytes)
        self = try Message.decode(&reader)
    }

    public init(binary bytes: [UInt8]) throws(DecodeError) {
        // withUnsafeBytes only rethrows `any Error`; a Result keeps the type.
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(DecodeError) -> Message in try Message(binary: buffer) }
        }
        self = try result.get()
    }

    /// Decodes and also reports how many elements the decoder reserved for
    /// counts the input declared (for the test that bounds it).
    @_spi(Fuzzing) public static func decodeMeasuringReservations(_ bytes: [UInt8]) -> (
        Result<Message, DecodeError>, reserved: Int
    ) {
        bytes.withUnsafeBytes { buffer in
            var reader = BinaryReader(buffer)
            do throws(DecodeError) {
                let message = try decode(&reader)
                return (.success(message), reader.reservedElements)
            } catch {
                return (.failure(error), reader.reservedElements)
            }
        }
    }

    static func decode(_ reader: inout BinaryReader) throws(DecodeError) -> Message {
        let type = try header(&reader)
        let message = try decodeBody(of: type, &reader)
        try reader.expectEnd()
        return message
    }

    /// The ops of a binary `ops` message without their positions, as a
    /// replica merges them in one batch (`Document.apply(contentsOf:)`):
    /// no `PositionedOp` is made to copy each op out of. Checked as
    /// `init(binary:)` checks them; nil for any other message (whose body
    /// is not read).
    public static func ops(binary bytes: [UInt8]) throws(DecodeError) -> [Op]? {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(DecodeError) -> [Op]? in
                var reader = BinaryReader(buffer)
                guard try header(&reader) == .ops else { return nil }
                let ops = try reader.positionedOpsWithoutPositions(limit: ProtocolLimits.opsPerMessage)
                try reader.expectEnd()
                return ops
            }
        }
        return try result.get()
    }

    /// The frame's layout byte and the message's tag.
    static func header(_ reader: inout BinaryReader) throws(DecodeError) -> MessageType {
        guard reader.remaining <= ProtocolLimits.messageBytes else {
            throw DecodeError(
                .tooLarge, "the message is \(reader.remaining) bytes; at most \(ProtocolLimits.messageBytes)")
        }
        let version = try reader.byte("the wire version")
        guard version == WireProtocol.frameVersion else {
            throw DecodeError(.unsupportedWireVersion, "frame layout \(version); this decoder reads layout 1")
        }
        let tag = try reader.byte("the message tag")
        guard let type = MessageType(rawValue: tag) else {
            throw DecodeError(.unknownMessageType, "unknown message tag \(tag)")
        }
        return type
    }

    private static func decodeBody(of type: MessageType, _ reader: inout BinaryReader) throws(DecodeError)
        -> Message
    {
        switch type {
        case .hello:
            let version = try reader.varint(UInt32.self, "the protocol version")
            let document = try DocumentName(
                reader.string("the document name", limit: ProtocolLimits.documentNameBytes, limitCode: .invalidValue))
            let replica = try reader.replicaID("the replica")
            guard replica.rawValue != 0 else { throw DecodeError(.invalidValue, "replica 0 is reserved") }
            let flags = try reader.flags("the hello flags", known: HelloFlags.known)
            let token =
                flags & HelloFlags.token != 0 ? try reader.string("the token", limit: ProtocolLimits.tokenBytes) : nil
            var since: ResumePoint?
            if flags & HelloFlags.since != 0 {
                let position = try reader.varint("the since position")
                since = ResumePoint(position: position, epoch: Epoch(rawValue: try reader.fixed64("the since epoch")))
            }
            return .hello(
                Hello(
                    protocolVersion: version, document: document, replica: replica, token: token, since: since,
                    user: try reader.user()))
        case .welcome:
            let version = try reader.varint(UInt32.self, "the protocol version")
            let epoch = Epoch(rawValue: try reader.fixed64("the epoch"))
            let position = try reader.varint("the position")
            let flags = try reader.flags("the welcome flags", known: WelcomeFlags.known)
            let content: Welcome.Content =
                flags & WelcomeFlags.snapshot != 0
                ? .snapshot(try reader.opBatch(limit: ProtocolLimits.opsPerMessage))
                : .tail(try reader.positionedOps(limit: ProtocolLimits.opsPerMessage))
            // A presence body takes at least: replica 8, two empty strings 2,
            // colour 4, flags 1, an empty selection 1.
            let peerCount = try reader.count(of: "peers", limit: ProtocolLimits.peersInWelcome, minimumBytes: 16)
            var peers: [Presence] = []
            peers.reserveCapacity(peerCount)
            for _ in 0..<peerCount { peers.append(try reader.presence()) }
            return .welcome(
                Welcome(
                    protocolVersion: version, epoch: epoch, position: position, content: content,
                    more: flags & WelcomeFlags.more != 0, peers: peers))
        case .push:
            let batch = try reader.varint("the batch number")
            do throws(DecodeError) {
                let ops = try reader.opBatch(limit: ProtocolLimits.opsPerPush)
                guard !ops.isEmpty else { throw DecodeError(.invalidValue, "push \(batch) has no ops") }
                try Push.validatePositions(of: ops)
                // Checked here as well as for every message, so trailing
                // bytes are refused with the batch too.
                try reader.expectEnd()
                return .push(Push(batch: batch, ops: ops))
            } catch {
                throw error.about(batch: batch)
            }
        case .ack:
            let batch = try reader.varint("the batch number")
            let first = try reader.varint("the first position")
            return .ack(Ack(batch: batch, first: first, count: try reader.varint(UInt32.self, "the op count")))
        case .ops:
            return .ops(try reader.positionedOps(limit: ProtocolLimits.opsPerMessage))
        case .presence:
            return .presence(try reader.presence())
        case .leave:
            return .leave(try reader.replicaID("the replica"))
        case .error:
            let code = try reader.varint(UInt16.self, "the error code")
            let flags = try reader.flags("the error flags", known: ErrorFlags.known)
            let batch = flags & ErrorFlags.batch != 0 ? try reader.varint("the batch number") : nil
            let message = try reader.string("the error message", limit: ProtocolLimits.errorMessageBytes)
            return .error(
                ErrorMessage(
                    code: ErrorCode(rawValue: code), fatal: flags & ErrorFlags.fatal != 0, batch: batch,
                    message: message))
        case .ping:
            return .ping(nonce: try reader.varint("the nonce"))
        case .pong:
            return .pong(nonce: try reader.varint("the nonce"))
        }
    }
}
