/// The identity and the Lamport timestamp of one op.
///
/// Ordered by counter, then replica: a total order on which every
/// last-writer-wins register agrees, on every replica.
/// Counter 0 is never issued; it stamps registers nobody has written.
public struct OpID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var counter: UInt64
    public var replica: ReplicaID

    @inlinable
    public init(counter: UInt64, replica: ReplicaID) {
        self.counter = counter
        self.replica = replica
    }

    /// The stamp of a register nobody has written: below every real op.
    public static let unwritten = OpID(counter: 0, replica: ReplicaID(rawValue: 0))

    @inlinable
    public static func < (lhs: OpID, rhs: OpID) -> Bool {
        lhs.counter != rhs.counter ? lhs.counter < rhs.counter : lhs.replica < rhs.replica
    }

    /// `counter@replica`, e.g. `12@00000000000a11ce`.
    public var description: String { text() }

    /// `prefix`, the counter, `separator` and the replica, written at once:
    /// a renderer names every entity it draws, and interpolating the parts
    /// cost a fifth of a first render in the module.
    public func text(prefix: UInt8? = nil, separator: UInt8 = UInt8(ascii: "@")) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(38)
        if let prefix { utf8.append(prefix) }
        var digits: (UInt64, Int) = (1, 1)
        while digits.0 <= counter / 10 {
            digits.0 *= 10
            digits.1 += 1
        }
        var remaining = counter
        var unit = digits.0
        for _ in 0..<digits.1 {
            utf8.append(UInt8(ascii: "0") + UInt8(remaining / unit))
            remaining %= unit
            unit /= 10
        }
        utf8.append(separator)
        replica.appendHex(to: &utf8)
        return String(decoding: utf8, as: UTF8.self)
    }
}

/// An entity is named by the op that created it: unique with no coordination.
public struct EntityID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var creation: OpID

    @inlinable
    public init(_ creation: OpID) {
        self.creation = creation
    }

    /// The document itself, whose fields (`FieldID.document`) hold its
    /// background: no op creates it (counter 0 is never issued), every
    /// replica has it, and it is never drawn as an entity.
    public static let document = EntityID(.unwritten)

    /// The replica that created the entity; only it may append stroke samples.
    @inlinable
    public var author: ReplicaID { creation.replica }

    @inlinable
    public static func < (lhs: EntityID, rhs: EntityID) -> Bool {
        lhs.creation < rhs.creation
    }

    public var description: String { creation.text(prefix: UInt8(ascii: "e")) }
}

/// A transaction (one gesture or one command) is named by its first op.
///
/// Undo and redo work a transaction at a time; every op of a transaction
/// comes from the same replica.
public struct TransactionID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var first: OpID

    @inlinable
    public init(_ first: OpID) {
        self.first = first
    }

    @inlinable
    public static func < (lhs: TransactionID, rhs: TransactionID) -> Bool {
        lhs.first < rhs.first
    }

    public var description: String { "t\(first)" }
}
