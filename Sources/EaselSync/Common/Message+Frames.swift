import EaselModel
import EaselProtocol

extension Message {
    /// The message encoded for the wire, split into as many messages as the
    /// protocol's limits need: an `ops` message or a `welcome` with more ops
    /// than one message may carry, or more bytes, goes out in pieces (a
    /// welcome's pieces marked `more`, peers on the last).
    ///
    /// Splitting halves the ops until each piece fits, so it costs an
    /// encoding per level only for the rare message that is too big.
    public func wireFrames(as encoding: WireEncoding) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        appendFrames(as: encoding, to: &frames)
        return frames
    }

    private func appendFrames(as encoding: WireEncoding, to frames: inout [[UInt8]]) {
        if let (first, second) = halvedIfOverCount() {
            first.appendFrames(as: encoding, to: &frames)
            second.appendFrames(as: encoding, to: &frames)
            return
        }
        let bytes = encoded(as: encoding)
        if bytes.count > ProtocolLimits.messageBytes, let (first, second) = halved() {
            first.appendFrames(as: encoding, to: &frames)
            second.appendFrames(as: encoding, to: &frames)
            return
        }
        frames.append(bytes)
    }

    private func halvedIfOverCount() -> (Message, Message)? {
        switch self {
        case .ops(let ops) where ops.count > ProtocolLimits.opsPerMessage: halved()
        case .welcome(let welcome) where welcome.opCount > ProtocolLimits.opsPerMessage: halved()
        default: nil
        }
    }

    /// The message as two messages with half the ops each, when it has ops
    /// to split.
    private func halved() -> (Message, Message)? {
        switch self {
        case .ops(let ops) where ops.count > 1:
            let middle = ops.count / 2
            return (.ops(Array(ops[..<middle])), .ops(Array(ops[middle...])))
        case .welcome(let welcome) where welcome.opCount > 1:
            var first = welcome
            var second = welcome
            first.more = true
            first.peers = []
            switch welcome.content {
            case .snapshot(let ops):
                let middle = ops.count / 2
                first.content = .snapshot(Array(ops[..<middle]))
                second.content = .snapshot(Array(ops[middle...]))
            case .tail(let ops):
                let middle = ops.count / 2
                first.content = .tail(Array(ops[..<middle]))
                second.content = .tail(Array(ops[middle...]))
            }
            return (.welcome(first), .welcome(second))
        default:
            return nil
        }
    }
}

extension Welcome {
    var opCount: Int {
        switch content {
        case .snapshot(let ops): ops.count
        case .tail(let ops): ops.count
        }
    }
}
