import EaselModel
import EaselProtocol

extension Message {
    /// The message encoded for the wire, split into as many messages as the
    /// protocol's limits need: an `ops` message or a `welcome` with more ops
    /// (or peers) than one message may carry, or more bytes, goes out in
    /// pieces. A welcome's pieces are marked `more`, and its peers ride on
    /// the last pieces.
    ///
    /// A message of many ops is cut by the size its first ops encode to,
    /// a smaller one by its whole size; only a piece still too big is cut
    /// again.
    public func wireFrames(as encoding: WireEncoding) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        appendFrames(as: encoding, to: &frames)
        return frames
    }

    private func appendFrames(as encoding: WireEncoding, to frames: inout [[UInt8]]) {
        let opLimit = ProtocolLimits.opsPerMessage
        if opCount > opLimit, let pieces = split(into: (opCount + opLimit - 1) / opLimit) {
            for piece in pieces { piece.appendFrames(as: encoding, to: &frames) }
            return
        }
        if let pieces = piecesBySample(as: encoding) {
            for piece in pieces { piece.appendFrames(as: encoding, to: &frames) }
            return
        }
        let bytes = encoded(as: encoding)
        if bytes.count > ProtocolLimits.messageBytes,
            let pieces = split(into: bytes.count / ProtocolLimits.messageBytes + 1)
        {
            for piece in pieces { piece.appendFrames(as: encoding, to: &frames) }
            return
        }
        frames.append(bytes)
    }

    /// Pieces of a message of many ops that its first ops say is over the
    /// byte limit, each expected within three quarters of it; nil when it
    /// has too few ops to tell or looks small enough to go whole. Encoded
    /// whole only to learn its size, a 50,000-entity welcome was encoded
    /// twice, a sixth of a cold join's time.
    private func piecesBySample(as encoding: WireEncoding) -> [Message]? {
        let sampleOps = 1_024
        guard opCount >= 4 * sampleOps, let sample = firstOps(sampleOps) else { return nil }
        let bytesPerOp = Double(sample.encoded(as: encoding).count) / Double(max(1, sample.opCount))
        let expected = bytesPerOp * Double(opCount)
        let target = Double(ProtocolLimits.messageBytes) * 0.75
        guard expected > target else { return nil }
        return split(into: Int(expected / target) + 1)
    }

    /// The message with only its first `count` ops (and no peers).
    private func firstOps(_ count: Int) -> Message? {
        switch self {
        case .ops(let ops): return .ops(Array(ops.prefix(count)))
        case .welcome(var welcome):
            switch welcome.content {
            case .snapshot(let ops): welcome.content = .snapshot(Array(ops.prefix(count)))
            case .tail(let ops): welcome.content = .tail(Array(ops.prefix(count)))
            }
            welcome.peers = []
            return .welcome(welcome)
        default: return nil
        }
    }

    /// Whether the message never needs splitting: one without ops (an ack,
    /// presence, a ping), whose size other limits bound far below a
    /// message's, so its one encoding is its one frame.
    public var travelsInOneFrame: Bool {
        switch self {
        case .ack, .presence, .leave, .ping, .pong: true
        case .hello, .welcome, .push, .ops, .error: false
        }
    }

    private var opCount: Int {
        switch self {
        case .ops(let ops): ops.count
        case .welcome(let welcome): welcome.opCount
        default: 0
        }
    }

    /// The message as `count` messages (fewer when it has fewer ops or
    /// peers), or nil when there is nothing left to divide.
    private func split(into count: Int) -> [Message]? {
        switch self {
        case .ops(let ops) where ops.count > 1:
            return Self.pieces(of: ops, count: count).map { .ops($0) }
        case .welcome(let welcome) where welcome.opCount > 1:
            let parts: [Welcome.Content] =
                switch welcome.content {
                case .snapshot(let ops): Self.pieces(of: ops, count: count).map { .snapshot($0) }
                case .tail(let ops): Self.pieces(of: ops, count: count).map { .tail($0) }
                }
            return parts.enumerated().map { index, content in
                var piece = welcome
                piece.content = content
                if index < parts.count - 1 {
                    piece.more = true
                    piece.peers = []
                }
                return .welcome(piece)
            }
        case .welcome(let welcome) where welcome.peers.count > 1:
            // Peers alone are too many: earlier pieces carry peers only.
            let groups = Self.pieces(of: welcome.peers, count: count)
            return groups.enumerated().map { index, peers in
                var piece = welcome
                piece.peers = peers
                if index < groups.count - 1 {
                    piece.more = true
                    piece.content = welcome.content.emptied
                }
                return .welcome(piece)
            }
        default:
            return nil
        }
    }

    private static func pieces<Element>(of elements: [Element], count: Int) -> [[Element]] {
        let count = max(1, min(count, elements.count))
        let size = (elements.count + count - 1) / count
        return stride(from: 0, to: elements.count, by: size).map {
            Array(elements[$0..<min($0 + size, elements.count)])
        }
    }
}

extension Welcome {
    public var opCount: Int {
        switch content {
        case .snapshot(let ops): ops.count
        case .tail(let ops): ops.count
        }
    }
}

extension Welcome.Content {
    /// The same kind of content, without ops.
    public var emptied: Welcome.Content {
        switch self {
        case .snapshot: .snapshot([])
        case .tail: .tail([])
        }
    }
}
