extension Document {
    /// A text's characters as they read: its sequence once anyone has
    /// edited it a character at a time, else its `text` register.
    public func textString(of entity: EntityID) -> String? {
        if let characters = texts[entity] { return characters.sequence.string }
        return slots[entity].map { records[Int($0)].text.value }
    }

    /// An entity's fields as a copy of it (a clipping, a duplicate) is
    /// created with: its registers, but a text's characters as they read.
    /// Once anyone types into a text a character at a time its register
    /// keeps what it was placed with, and the page places a new text with
    /// what was typed by its first frame: a copy of the register alone
    /// would be the first letters.
    public func fieldsAsTheyRead(of entity: EntityID, kind: EntityKind) -> [Field] {
        kind.fields.sorted().compactMap { field in
            if field == .text, let characters = texts[entity] { return .text(characters.sequence.string) }
            return register(field, of: entity)?.value
        }
    }

    /// A text's characters, for an editor placing a caret or making an op;
    /// nil when it is a string no one has edited a character at a time
    /// (`TextCharacters` starts one from the register).
    public func textSequence(of entity: EntityID) -> TextSequence? {
        texts[entity]?.sequence
    }

    /// The text's sequence as its first character op would find it: its
    /// own, or one started from its register.
    public func textSequenceForEditing(of entity: EntityID) -> TextSequence {
        if let characters = texts[entity] { return characters.sequence }
        guard let slot = slots[entity] else { return TextSequence() }
        return charactersFromRegister(of: slot).sequence
    }

    /// The characters a text's register starts: what its first character
    /// op finds.
    private func charactersFromRegister(of slot: Int32) -> TextCharacters {
        TextCharacters(base: records[Int(slot)].text.value, stamp: records[Int(slot)].text.stamp)
    }

    /// The slot of a text about to take character ops, its characters
    /// started from its register if they were not yet.
    private mutating func slotWithCharacters(of entity: EntityID) -> Int32 {
        let slot = slot(for: entity)
        if texts[entity] == nil { texts[entity] = charactersFromRegister(of: slot) }
        return slot
    }

    /// The latest op that changed a text's characters or its register: a
    /// peer that reads texts as one string sees the text stamped with it.
    public func textStamp(of entity: EntityID) -> OpID? {
        if let characters = texts[entity] { return characters.latestStamp }
        return slots[entity].map { records[Int($0)].text.stamp }
    }

    /// The geometry of a visible record, read in place; a text's from its
    /// characters once they merge.
    func geometry(of record: EntityRecord) -> EntityGeometry? {
        EntityGeometry(record, text: mergedString(of: record))
    }

    /// The entity at `slot` as a value, its text's characters as they
    /// read; nil while it is not visible.
    func entity(at slot: Int32) -> Entity? {
        records[Int(slot)].entity(text: mergedString(of: records[Int(slot)]))
    }

    /// A visible text's characters as they read, once they merge; nil for
    /// anything else (its register is what it reads).
    private func mergedString(of record: EntityRecord) -> String? {
        guard record.kind == .text, record.alive.value, let characters = texts[record.id] else { return nil }
        return characters.sequence.string
    }

    /// Character ops are rare beside sets: applied out of line, so applying
    /// a set stays small.
    @inline(never)
    mutating func applyText(_ op: Op, to entity: EntityID) -> ApplyResult {
        guard let textOp = op.textOp else { return .refused(.invalidText("not a character op")) }
        return applyText(textOp, to: entity, stamp: op.id)
    }

    mutating func applyText(_ op: TextOp, to entity: EntityID, stamp: OpID) -> ApplyResult {
        let created = records[Int(slotWithCharacters(of: entity))].kind != nil
        return ApplyResult(texts[entity]?.apply(op, stamp: stamp), created: created)
    }

    @inline(never)
    mutating func applyText(_ snapshot: TextSnapshot, to entity: EntityID, stamp: OpID) -> ApplyResult {
        let created = records[Int(slotWithCharacters(of: entity))].kind != nil
        return ApplyResult(texts[entity]?.apply(snapshot, stamp: stamp), created: created)
    }
}

extension ApplyResult {
    fileprivate init(_ outcome: TextCharacters.ApplyOutcome?, created: Bool) {
        switch outcome {
        case .applied?: self = created ? .applied : .appliedBeforeCreate
        case .duplicate?: self = .duplicate
        case .waiting?, nil: self = .waitingForGap
        case .tooLong?: self = .refused(.invalidText("more characters than a text may have"))
        }
    }
}

extension Document {

    /// Applies ops received together, as applying them one by one would:
    /// consecutive character ops on one text go to it together, so typing
    /// and backspacing join into runs (`TextSequence.apply(contentsOf:)`).
    public mutating func apply(contentsOf ops: [Op]) {
        if ops.count >= Self.batchReorderedOnce {
            // Room for the records at once, and an eighth more for the
            // entities people add next: grown by doubling, the old and the
            // new array would both be held while one is copied, and the
            // module's memory never shrinks from its peak.
            reserveCapacity(forCreates: Self.createCount(in: ops))
            reorderingOnce { document in document.applyInTurn(ops) }
        } else {
            applyInTurn(ops)
        }
    }

    /// How many of `ops` are creates: the records they may add.
    public static func createCount(in ops: [Op]) -> Int {
        var creates = 0
        for index in ops.indices {
            if case .create = ops[index].action { creates += 1 }
        }
        return creates
    }

    /// Room for `creates` more records and an eighth more, when there is
    /// not room already: for the batches of a welcome, before the first.
    public mutating func reserveCapacity(forCreates creates: Int) {
        let needed = records.count + creates
        if records.capacity < needed { records.reserveCapacity(needed + needed / 8) }
    }

    /// From this many ops a batch puts the z-order in order once, at its
    /// end (a welcome, a snapshot, a log loaded): the pass over the whole
    /// order is then cheaper than keeping it in order op by op.
    static let batchReorderedOnce = 64

    private mutating func applyInTurn(_ ops: [Op]) {
        // By index, reading each op's action once where it can: iterating,
        // or asking each op for its parts in turn, would copy every op.
        var index = ops.startIndex
        while index < ops.endIndex {
            guard let entity = Self.characterEntity(of: ops[index]) else {
                apply(ops[index])
                index += 1
                continue
            }
            var next = index + 1
            while next < ops.endIndex, Self.characterEntity(of: ops[next]) == entity { next += 1 }
            _ = slotWithCharacters(of: entity)
            if let highest = texts[entity]?.apply(contentsOf: ops[index..<next]), highest > highestCounter {
                highestCounter = highest
            }
            index = next
        }
    }

    /// The text whose characters the op edits; nil for any other op.
    @inline(__always)
    private static func characterEntity(of op: Op) -> EntityID? {
        switch op.action {
        case .insertText(let entity, _), .deleteText(let entity, _), .textSnapshot(let entity, _): entity
        default: nil
        }
    }

    /// Starts a text's characters again from its register, when a write
    /// of the register that the characters did not start from has won.
    mutating func rebaseText(of entity: EntityID) {
        guard let characters = texts[entity], let slot = slots[entity] else { return }
        let register = records[Int(slot)].text
        guard register.stamp != characters.base else { return }
        texts[entity] = characters.rebased(on: register.value, stamp: register.stamp)
    }
}
