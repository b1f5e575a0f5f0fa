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
    public var runs: CharacterRuns

    public init(runs: CharacterRuns) {
        self.runs = runs
    }

    public init(runs: [CharacterRun]) {
        self.runs = CharacterRuns(runs)
    }
}

/// A delete's runs: one kept inline, more in a list, so that a key's
/// delete, one run, allocates nothing (typing deletes as often as a third
/// of its edits), and a list an op carries is kept, not copied.
public struct CharacterRuns: RandomAccessCollection, MutableCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
    private enum Storage: Sendable {
        case one(CharacterRun)
        case list([CharacterRun])
    }

    private var storage: Storage

    public init() {
        storage = .list([])
    }

    public init(_ runs: [CharacterRun]) {
        storage = runs.count == 1 ? .one(runs[0]) : .list(runs)
    }

    public init(arrayLiteral runs: CharacterRun...) {
        self.init(runs)
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .one: 1
        case .list(let runs): runs.count
        }
    }

    public subscript(index: Int) -> CharacterRun {
        get {
            switch storage {
            case .one(let run):
                precondition(index == 0, "an index of the runs")
                return run
            case .list(let runs): return runs[index]
            }
        }
        set {
            switch storage {
            case .one:
                precondition(index == 0, "an index of the runs")
                storage = .one(newValue)
            case .list(var runs):
                // Let go of the list first, so changing it does not copy it.
                storage = .list([])
                runs[index] = newValue
                storage = .list(runs)
            }
        }
    }

    public mutating func append(_ run: CharacterRun) {
        switch storage {
        case .one(let first): storage = .list([first, run])
        case .list(var runs):
            guard !runs.isEmpty else { return storage = .one(run) }
            storage = .list([])
            runs.append(run)
            storage = .list(runs)
        }
    }

    public static func == (lhs: CharacterRuns, rhs: CharacterRuns) -> Bool {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for run in self { hasher.combine(run) }
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
