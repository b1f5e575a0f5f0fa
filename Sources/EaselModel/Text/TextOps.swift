/// A run of characters one replica typed left to right, as an op: the
/// first character's id, and each next character's id one counter on
/// (`id.counter + offset`). The run goes between its origins: the
/// characters that were to its left and right where it was typed (nil: the
/// start and the end of the text). Within the run, each character's left
/// origin is the one before it, and all share the right origin.
public struct TextInsert: Hashable, Sendable {
    public var id: OpID
    public var originLeft: OpID?
    public var originRight: OpID?
    public var scalars: [Unicode.Scalar]

    public init(id: OpID, originLeft: OpID?, originRight: OpID?, scalars: [Unicode.Scalar]) {
        self.id = id
        self.originLeft = originLeft
        self.originRight = originRight
        self.scalars = scalars
    }

    /// The id of the character at `offset` in the run.
    public func id(at offset: Int) -> OpID {
        OpID(counter: id.counter + UInt64(offset), replica: id.replica)
    }
}

/// Characters removed: their ids, as runs of consecutive counters of one
/// replica. A character deleted stays in the sequence as a tombstone, since
/// inserts made anywhere may name it as an origin.
public struct TextDelete: Hashable, Sendable {
    public var runs: [CharacterRun]

    public init(runs: [CharacterRun]) {
        self.runs = runs
    }
}

/// Consecutive character ids of one replica: `first` and the `count - 1`
/// counters after it.
public struct CharacterRun: Hashable, Sendable {
    public var first: OpID
    public var count: Int

    public init(first: OpID, count: Int) {
        self.first = first
        self.count = count
    }

    public var ids: [OpID] {
        (0..<count).map { OpID(counter: first.counter + UInt64($0), replica: first.replica) }
    }
}

public enum TextOp: Hashable, Sendable {
    case insert(TextInsert)
    case delete(TextDelete)
}
