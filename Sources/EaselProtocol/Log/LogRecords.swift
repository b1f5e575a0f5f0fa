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

/// A document's committed history as a room loads it: the latest snapshot,
/// the ops after it, and the per-replica high-water counters over both.
public struct CommittedHistory: Hashable, Sendable {
    public var name: String
    public var epoch: Epoch
    public var snapshot: StateSnapshot?
    public var tail: [LoggedOp]
    public var highWater: [ReplicaID: UInt64]

    public init(
        name: String, epoch: Epoch, snapshot: StateSnapshot? = nil, tail: [LoggedOp] = [],
        highWater: [ReplicaID: UInt64] = [:]
    ) {
        self.name = name
        self.epoch = epoch
        self.snapshot = snapshot
        self.tail = tail
        self.highWater = highWater
    }

    /// The last committed position (0 for an empty document).
    public var head: UInt64 { tail.last?.position ?? snapshot?.position ?? 0 }

    /// The document: the snapshot's state, then the tail.
    public func document() -> Document {
        var document = Document()
        // Together, so a text's snapshot pieces load as one.
        document.apply(contentsOf: snapshot?.state ?? [])
        for logged in tail { document.apply(logged.op) }
        return document
    }
}
