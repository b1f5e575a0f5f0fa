import EaselModel

extension Op {
    /// This op as a peer speaking `version` may be sent it, or nil when
    /// nothing of it is left: below version 3, without `erases`, so such a
    /// peer reads every eraser as one drawn before erasures were recorded
    /// (masking all beneath it).
    public func spoken(in version: UInt32) -> Op? {
        guard version < WireProtocol.erasuresVersion else { return self }
        switch action {
        case .set(_, .erases):
            return nil
        case .create(let kind, let fields) where fields.contains(where: { $0.id == .erases }):
            return Op(id: id, transaction: transaction, action: .create(kind, fields.filter { $0.id != .erases }))
        default:
            return self
        }
    }
}

extension Welcome.Content {
    /// The content as a peer speaking `version` may be sent it.
    public func spoken(in version: UInt32) -> Welcome.Content {
        guard version < WireProtocol.erasuresVersion else { return self }
        switch self {
        case .snapshot(let ops): return .snapshot(ops.compactMap { $0.spoken(in: version) })
        case .tail(let ops): return .tail(ops.spoken(in: version))
        }
    }
}

extension Array where Element == PositionedOp {
    /// The ops as a peer speaking `version` may be sent them, positions
    /// kept (a left-out op leaves a gap, which positions allow).
    public func spoken(in version: UInt32) -> [PositionedOp] {
        guard version < WireProtocol.erasuresVersion else { return self }
        return compactMap { positioned in
            positioned.op.spoken(in: version).map { PositionedOp(position: positioned.position, op: $0) }
        }
    }
}
