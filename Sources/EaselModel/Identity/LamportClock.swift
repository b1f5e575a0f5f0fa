/// One replica's Lamport clock.
///
/// The next counter is one more than the highest counter the replica has
/// issued or seen, so every op is stamped after everything its author knew of.
public struct LamportClock: Hashable, Sendable {
    public let replica: ReplicaID
    /// The highest counter issued or observed so far (0 before the first op).
    public private(set) var counter: UInt64

    public init(replica: ReplicaID, counter: UInt64 = 0) {
        self.replica = replica
        self.counter = counter
    }

    /// Takes note of a counter seen in someone else's op.

    public mutating func observe(_ seen: UInt64) {
        if seen > counter { counter = seen }
    }

    /// The ID of the next op, without issuing it.
    public var peek: OpID {
        get throws(ModelError) {
            guard counter < UInt64.max else { throw .clockExhausted }
            return OpID(counter: counter + 1, replica: replica)
        }
    }

    /// Issues the next op ID.
    public mutating func tick() throws(ModelError) -> OpID {
        let next = try peek
        counter = next.counter
        return next
    }
}
