import EaselModel

/// Where a batch's decoder puts each op once it is read and checked: a
/// `ReceivedOps`, which callers wanting `Op`s turn into them. One kind of
/// sink, not one for each shape a caller wants, because the decoder's loop
/// is compiled once for each and the WebAssembly module has a size budget.
struct ReceivedOpsSink {
    var received: ReceivedOps
    var lastPosition: UInt64?
    /// Every op's position, when the caller wants them (nil: only the last).
    var positions: [UInt64]?

    mutating func begin(entities: [EntityID], opCount: Int) {
        received.removeAll(startingWith: entities, capacity: opCount)
        positions?.reserveCapacity(opCount)
    }

    @inline(__always)
    mutating func numberSet(_ set: NumberSet, position: UInt64) {
        received.append(set)
        lastPosition = position
        positions?.append(position)
    }

    mutating func op(_ op: consuming Op, position: UInt64) {
        received.append(op)
        lastPosition = position
        positions?.append(position)
    }
}
