/// A text entity's characters, once anyone has edited them one by one.
///
/// Until then a text is its `text` register, a string written whole (all a
/// text was before characters merged, so documents from then open as they
/// were). The first character op makes the register's string the start of
/// the sequence: its characters take the ids the register's write reserved,
/// `stamp`, `stamp + 1`, … (a write of n characters takes n counters, so no
/// op of anyone who saw it has those ids), with no origins. Every replica
/// derives the same characters from the same write, so any number of people
/// may start editing one text at once.
///
/// Should a later write of the register win after that (written before its
/// writer saw the characters; a server refuses one written after), the
/// characters start again from it: the characters typed on since are kept,
/// and those typed into the old string wait for characters that are gone.
struct TextCharacters: Sendable, Equatable {
    /// The register write the characters start from.
    private(set) var base: OpID
    private(set) var baseLength: Int
    private(set) var sequence: TextSequence
    /// The latest delete applied, which a snapshot stamps its delete with.
    private(set) var latestDelete: OpID?
    /// The latest op applied, base included: what a peer reading the text
    /// as one string sees it stamped with.
    private(set) var latestStamp: OpID

    init(base string: String, stamp: OpID) {
        base = stamp
        let scalars = Array(string.unicodeScalars)
        baseLength = scalars.count
        latestStamp = stamp
        sequence = TextSequence()
        if stamp != .unwritten, !scalars.isEmpty {
            sequence.apply(.insert(TextInsert(id: stamp, originLeft: nil, originRight: nil, scalars: scalars)))
        }
    }

    /// Whether `id` is one of the characters the base string gave.
    func isBase(_ id: OpID) -> Bool {
        id.replica == base.replica && id.counter >= base.counter && id.counter - base.counter < UInt64(baseLength)
    }

    /// The characters of a run typed since the base string: a run may
    /// begin with the base's last characters and go on with someone's
    /// typing after them. Nil when the run is all the base's.
    func typedPart(of insert: TextInsert) -> TextInsert? {
        guard isBase(insert.id) else { return insert }
        let inBase = min(insert.scalars.count, baseLength - Int(insert.id.counter - base.counter))
        guard inBase < insert.scalars.count else { return nil }
        return TextInsert(
            id: insert.id.advanced(by: inBase), originLeft: insert.id.advanced(by: inBase - 1),
            originRight: insert.originRight, scalars: Array(insert.scalars[inBase...]))
    }

    mutating func apply(_ op: TextOp, stamp: OpID) -> ApplyOutcome {
        note(op, stamp: stamp)
        if case .insert(let insert) = op, sequence.contains(insert.id) { return .duplicate }
        return sequence.apply(op) ? .applied : .waiting
    }

    /// Ops of this text received together, read from the ops that carry
    /// them as they are merged (`TextSequence.apply(contentsOf:)` joins
    /// typing into runs), each stamped with its op: no list of them is made.
    /// The highest counter the ops take.
    mutating func apply(contentsOf ops: ArraySlice<Op>) -> UInt64 {
        var highest: UInt64 = 0
        if sequence.totalCount == 0 {
            // A text loaded whole (a snapshot, a welcome) gets room for
            // exactly its characters, not the slack of growing to them.
            var arriving = 0
            var runs = 0
            for index in ops.indices {
                guard case .insertText(_, let insertion) = ops[index].action else { continue }
                arriving += insertion.scalars.count
                runs += 1
            }
            sequence.reserveCapacity(arriving, runs: runs)
        }
        // By index, reading only the parts wanted: iterating would copy
        // every op.
        var batch = TextSequence.Batch()
        for index in ops.indices {
            switch ops[index].action {
            case .insertText(_, let insertion):
                let id = ops[index].id
                note(deleting: false, stamp: id)
                highest = max(highest, id.counter &+ UInt64(max(insertion.scalars.count - 1, 0)))
                let insert = TextInsert(
                    id: id, originLeft: insertion.originLeft, originRight: insertion.originRight,
                    scalars: insertion.scalars)
                sequence.add(insert, to: &batch)
            case .deleteText(_, let runs):
                let id = ops[index].id
                note(deleting: true, stamp: id)
                highest = max(highest, id.counter)
                sequence.add(TextDelete(runs: runs), to: &batch)
            default: continue
            }
        }
        sequence.finish(&batch)
        return highest
    }

    private mutating func note(_ op: TextOp, stamp: OpID) {
        let deleting: Bool = if case .delete = op { true } else { false }
        note(deleting: deleting, stamp: stamp)
    }

    private mutating func note(deleting: Bool, stamp: OpID) {
        latestStamp = max(latestStamp, stamp)
        if deleting { latestDelete = max(latestDelete ?? stamp, stamp) }
    }

    enum ApplyOutcome {
        case applied, duplicate, waiting
    }

    /// The characters started again from a later write of the register.
    func rebased(on string: String, stamp: OpID) -> TextCharacters {
        var rebased = TextCharacters(base: string, stamp: stamp)
        rebased.latestStamp = max(latestStamp, stamp)
        rebased.latestDelete = latestDelete
        var deleted: [CharacterRun] = []
        var typed: [TextOp] = []
        for run in sequence.runs {
            guard let insert = typedPart(of: run.insert) else { continue }
            typed.append(.insert(insert))
            if run.isDeleted { deleted.append(CharacterRun(first: insert.id, count: insert.scalars.count)) }
        }
        rebased.sequence.apply(contentsOf: typed + sequence.waiting)
        if !deleted.isEmpty { rebased.sequence.apply(.delete(TextDelete(runs: deleted))) }
        return rebased
    }
}
