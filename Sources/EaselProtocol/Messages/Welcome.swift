import EaselModel

/// The server's answer to a hello: the committed state the client lacks,
/// possibly over several chunks (`more` on all but the last).
public struct Welcome: Hashable, Sendable {
    /// The version both sides now speak.
    public var protocolVersion: UInt32
    public var epoch: Epoch
    /// The committed head: where the client stands after the last chunk.
    public var position: UInt64
    public var content: Content
    public var more: Bool
    public var peers: [Presence]

    public init(
        protocolVersion: UInt32 = WireProtocol.version, epoch: Epoch, position: UInt64, content: Content,
        more: Bool = false, peers: [Presence] = []
    ) {
        self.protocolVersion = protocolVersion
        self.epoch = epoch
        self.position = position
        self.content = content
        self.more = more
        self.peers = peers
    }

    public enum Content: Hashable, Sendable {
        /// The whole state as ops: the client drops its copy and loads them.
        case snapshot([Op])
        /// Exactly the committed ops after the hello's `since`.
        case tail([PositionedOp])
    }
}

/// A committed op and its place in the document's order.
public struct PositionedOp: Hashable, Sendable {
    public var position: UInt64
    public var op: Op

    public init(position: UInt64, op: Op) {
        self.position = position
        self.op = op
    }
}
