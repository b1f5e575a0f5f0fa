import EaselModel

/// A committed op as a document's log keeps it: storage, the JSON Lines
/// log and replay all speak of ops this way.
public struct LoggedOp: Hashable, Sendable {
    public var position: UInt64
    public var op: Op
    /// The authenticated user the server received it from.
    public var author: String
    /// Milliseconds since 1970, when the server received it.
    public var receivedAt: Int64

    public init(position: UInt64, op: Op, author: String, receivedAt: Int64) {
        self.position = position
        self.op = op
        self.author = author
        self.receivedAt = receivedAt
    }
}

/// A document's state at a position, and the highest counter each replica
/// had committed by then.
public struct StateSnapshot: Hashable, Sendable {
    public var position: UInt64
    /// `Document.snapshotOps` of the state.
    public var state: [Op]
    public var highWater: [ReplicaID: UInt64]

    public init(position: UInt64, state: [Op], highWater: [ReplicaID: UInt64]) {
        self.position = position
        self.state = state
        self.highWater = highWater
    }
}
