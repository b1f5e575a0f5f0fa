/// The right of one node to append to one document, as long as the fence
/// it was taken with is still the lease row's (Docs/scaling.md).
public struct Lease: Hashable, Sendable {
    /// The node holding it (`nodes.id`).
    public var node: Int64
    /// The fencing token: raised each time the lease changes hands.
    public var fence: Int64

    public init(node: Int64, fence: Int64) {
        self.node = node
        self.fence = fence
    }
}

/// A node, as others see it in the `nodes` table.
public struct NodeIdentity: Hashable, Sendable {
    public var id: Int64
    /// The name the router knows it by.
    public var name: String
    /// Where it serves, host:port.
    public var address: String

    public init(id: Int64, name: String, address: String) {
        self.id = id
        self.name = name
        self.address = address
    }
}

/// What asking for a lease got.
public enum LeaseAnswer: Hashable, Sendable {
    case granted(Lease)
    /// Another node holds it and is alive: its session is connected and it
    /// renews its row. `expiresInMilliseconds` is how long until its row
    /// expires if it stops renewing; `releasing`, whether it is about to
    /// release it: it is draining, or handing the lease to the asker.
    case held(by: NodeIdentity, expiresInMilliseconds: Int64, releasing: Bool)
}

/// How long leases last, by the database's clock.
public struct LeaseTiming: Hashable, Sendable {
    /// A node that stops renewing keeps its leases this long, unless its
    /// database session ends first (a killed process's does at once).
    public var ttl: Duration = .seconds(3)

    public init(ttl: Duration = .seconds(3)) {
        self.ttl = ttl
    }

    /// A node renews three times a lease: a renewal may be late by two
    /// thirds of one before the node's leases may be taken.
    public var renewEvery: Duration { ttl / 3 }

    /// How long a node serves on the strength of a renewal, counted from
    /// when it sent it: the lease, less a tenth for the two clocks' rates
    /// (`ServingDeadline`).
    public var servesFor: Duration { ttl - ttl / 10 }

    var ttlMilliseconds: Int64 { ttl.milliseconds }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
