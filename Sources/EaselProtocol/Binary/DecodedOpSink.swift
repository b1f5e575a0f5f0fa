import EaselModel

/// Where a batch's decoder puts each op once it is read and checked: an
/// array of ops, of positioned ops, or a `ReceivedOps` to merge.
protocol DecodedOpSink {
    /// Once, after the tables and before the first op.
    mutating func begin(entities: [EntityID], opCount: Int)
    /// A set of a number on a table entry that is not the document, with a
    /// transaction it may belong to.
    mutating func numberSet(_ set: NumberSet, entity: EntityID, position: UInt64)
    mutating func op(_ op: consuming Op, position: UInt64)
}

struct OpSink: DecodedOpSink {
    var ops: [Op] = []

    mutating func begin(entities: [EntityID], opCount: Int) { ops.reserveCapacity(opCount) }

    mutating func numberSet(_ set: NumberSet, entity: EntityID, position: UInt64) {
        ops.append(set.op(entity: entity))
    }

    mutating func op(_ op: consuming Op, position: UInt64) { ops.append(op) }
}

struct PositionedOpSink: DecodedOpSink {
    var ops: [PositionedOp] = []

    mutating func begin(entities: [EntityID], opCount: Int) { ops.reserveCapacity(opCount) }

    mutating func numberSet(_ set: NumberSet, entity: EntityID, position: UInt64) {
        ops.append(PositionedOp(position: position, op: set.op(entity: entity)))
    }

    mutating func op(_ op: consuming Op, position: UInt64) {
        ops.append(PositionedOp(position: position, op: op))
    }
}

/// Fills a `ReceivedOps` it borrows, reusing its storage.
struct ReceivedOpsSink: DecodedOpSink {
    var received: ReceivedOps
    var lastPosition: UInt64?

    mutating func begin(entities: [EntityID], opCount: Int) {
        received.removeAll(startingWith: entities, capacity: opCount)
    }

    mutating func numberSet(_ set: NumberSet, entity: EntityID, position: UInt64) {
        received.append(set)
        lastPosition = position
    }

    mutating func op(_ op: consuming Op, position: UInt64) {
        received.append(op)
        lastPosition = position
    }
}
