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
        note(stamp)
        if case .insert(let insert) = op, sequence.contains(insert.id) { return .duplicate }
        return sequence.apply(op) ? .applied : .waiting
    }

    mutating func apply(_ snapshot: TextSnapshot, stamp: OpID) -> ApplyOutcome {
        guard load(snapshot) else { return .tooLong }
        note(stamp)
        return sequence.isWaiting ? .waiting : .applied
    }

    /// Ops of this text received together, read from the ops that carry
    /// them as they are merged (`TextSequence.apply(contentsOf:)` joins
    /// typing into runs), each stamped with its op: no list of them is made.
    /// The highest counter the ops take.
    mutating func apply(contentsOf ops: ArraySlice<Op>) -> UInt64 {
        if sequence.totalCount == 0 { reserveCapacity(for: ops) }
        // Through the buffer, reading only the parts wanted: an op read
        // from the array, or iterated, is copied whole.
        return ops.withUnsafeBufferPointer { ops in
            var highest: UInt64 = 0
            var batch = TextSequence.Batch()
            var index = 0
            while index < ops.count {
                let id = ops[index].id
                // Read here, not through `Op.lastCounter`, which would copy
                // the op.
                highest = max(highest, id.counter)
                switch (ops.baseAddress.unsafelyUnwrapped + index).pointee.action {
                case .insertText(_, let insertion):
                    highest = max(highest, id.counter &+ UInt64(max(insertion.scalars.count - 1, 0)))
                    note(id)
                    sequence.add(insertion, id: id, to: &batch)
                case .deleteText(_, let runs):
                    note(id)
                    sequence.add(TextDelete(runs: runs), to: &batch)
                case .textSnapshot(_, var snapshot):
                    // A snapshot's pieces come one after another: they load as
                    // one, since a run's right origin may be in a later piece.
                    sequence.finish(&batch)
                    note(id)
                    highest = max(highest, snapshot.highestCounter)
                    while index + 1 < ops.count, case .textSnapshot(_, let next) = ops[index + 1].action {
                        index += 1
                        note(ops[index].id)
                        highest = max(highest, ops[index].id.counter, next.highestCounter)
                        snapshot.append(next)
                    }
                    // Only a corrupt store gives a text too long to be one:
                    // it is left as it was.
                    _ = load(snapshot)
                default:
                    break
                }
                index += 1
            }
            sequence.finish(&batch)
            return highest
        }
    }

    /// A text loaded whole (a welcome, a store's ops) gets room for exactly
    /// its characters, not the slack of growing to them.
    private mutating func reserveCapacity(for ops: ArraySlice<Op>) {
        var arriving = 0
        var runs = 0
        for index in ops.indices {
            guard case .insertText(_, let insertion) = ops[index].action else { continue }
            arriving += insertion.scalars.count
            runs += 1
        }
        if runs > 0 { sequence.reserveCapacity(arriving, runs: runs) }
    }

    /// Merges a snapshot of the text. Into characters that are the base
    /// string alone, as a replica joining finds them, the snapshot loads
    /// at once (`TextSequence(snapshot:)`) when it holds the base's
    /// characters, as every snapshot a replica made does; else its runs
    /// merge as the ops that typed and deleted them would. False, changing
    /// nothing, for more characters than a text may ever have.
    @discardableResult
    private mutating func load(_ snapshot: TextSnapshot) -> Bool {
        guard snapshot.characterCount <= ModelLimits.charactersPerText else { return false }
        if !hasEdits, let loaded = try? TextSequence(snapshot: snapshot),
            baseLength == 0 || loaded.containsAll(CharacterRun(first: base, count: baseLength))
        {
            let waiting = sequence.waiting
            sequence = loaded
            if !waiting.isEmpty { sequence.apply(contentsOf: waiting) }
            return true
        }
        let (inserts, deleted) = snapshot.ops
        for insert in inserts { sequence.apply(.insert(insert)) }
        if !deleted.runs.isEmpty { sequence.apply(.delete(deleted)) }
        return true
    }

    private mutating func note(_ stamp: OpID) {
        latestStamp = max(latestStamp, stamp)
    }

    enum ApplyOutcome {
        case applied, duplicate, waiting
        /// A snapshot of more characters than a text may have.
        case tooLong
    }

    /// The characters started again from a later write of the register.
    func rebased(on string: String, stamp: OpID) -> TextCharacters {
        var rebased = TextCharacters(base: string, stamp: stamp)
        rebased.latestStamp = max(latestStamp, stamp)
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
