/// A batch of ops as a receiver merges it (`Document.apply(_:)`): sets of
/// numbers as plain `NumberSet`s naming entities by their index in one
/// table, so each entity is looked up once a batch and no op is copied
/// as an enum; every other op as itself, in its place among them.
///
/// A decoder fills one (EaselProtocol: `OpsMessageReader`)
/// after checking every op, so applying it never fails halfway.
public struct ReceivedOps: Sendable {
    /// The entities the number sets name, by index.
    public private(set) var entities: [EntityID]
    @usableFromInline private(set) var numberSets: [NumberSet] = []
    @usableFromInline private(set) var others: [Op] = []
    /// For each of `others`, how many number sets came before it.
    @usableFromInline private(set) var othersFollow: [Int32] = []

    public init(entities: [EntityID], capacity: Int) {
        self.entities = entities
        numberSets.reserveCapacity(capacity)
    }

    public var count: Int { numberSets.count + others.count }

    /// Empties the batch for the next one, whose table is `entities`,
    /// keeping the storage: a receiver reads message after message into
    /// the same one.
    public mutating func removeAll(startingWith entities: [EntityID], capacity: Int) {
        self.entities = entities
        numberSets.removeAll(keepingCapacity: true)
        numberSets.reserveCapacity(capacity)
        others.removeAll(keepingCapacity: true)
        othersFollow.removeAll(keepingCapacity: true)
    }

    /// Adds a number set after the ops already added; its entry must be in
    /// the table (the decoder checked it).
    @inlinable
    public mutating func append(_ set: NumberSet) {
        precondition(set.entry >= 0 && Int(set.entry) < entities.count, "a number set names no table entry")
        numberSets.append(set)
    }

    /// Adds any op after those already added.
    public mutating func append(_ op: consuming Op) {
        othersFollow.append(Int32(numberSets.count))
        others.append(op)
    }

    /// The ops in the order they were added, as `Op`s.
    public var ops: [Op] { map { op, _ in op } }

    /// Each op in the order it was added, a number set made an `Op`, and
    /// its index, transformed. Inlinable, so a decoder that wants `Op`s
    /// builds them in a loop of its own, without a call for each.
    @inlinable
    public func map<T>(_ transform: (consuming Op, Int) -> T) -> [T] {
        var result: [T] = []
        result.reserveCapacity(count)
        var nextOther = 0
        for index in numberSets.indices {
            while nextOther < others.count, othersFollow[nextOther] == index {
                result.append(transform(others[nextOther], result.count))
                nextOther += 1
            }
            let set = numberSets[index]
            result.append(transform(set.op(entity: entities[Int(set.entry)]), result.count))
        }
        while nextOther < others.count {
            result.append(transform(others[nextOther], result.count))
            nextOther += 1
        }
        return result
    }
}
