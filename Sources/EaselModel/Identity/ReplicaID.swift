/// Identifies one editing session: every op it writes carries this ID.
///
/// Chosen at random (64 bits make collisions between the replicas of one
/// document vanishingly rare). A client that keeps unsent edits across a
/// restart keeps its ReplicaID and counter with them.
public struct ReplicaID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64

    @inlinable
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// A fresh random replica ID; never 0, which the protocol reserves for
    /// the document itself.
    public static func random() -> ReplicaID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> ReplicaID {
        while true {
            let value: UInt64 = generator.next()
            if value != 0 { return ReplicaID(rawValue: value) }
        }
    }

    @inlinable
    public static func < (lhs: ReplicaID, rhs: ReplicaID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Sixteen lower-case hex digits: fixed width, so logs line up.
    public var description: String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(16)
        appendHex(to: &utf8)
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The sixteen digits of `description`.
    func appendHex(to utf8: inout [UInt8]) {
        for shift in stride(from: 60, through: 0, by: -4) {
            let digit = UInt8((rawValue >> UInt64(shift)) & 0xF)
            utf8.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
    }
}
