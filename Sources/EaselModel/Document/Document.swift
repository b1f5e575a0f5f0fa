/// A canvas: the state of every entity, as a function of the set of ops
/// applied to it.
///
/// A value type with copy-on-write storage. Records are never removed —
/// a deleted entity is a record whose `alive` register is false — so
/// entity slots stay stable and a late op always finds its entity.
public struct Document: Sendable {
    /// Records in the order their IDs were first seen.
    var records: ContiguousArray<EntityRecord> = []
    /// Where each entity's record lives in `records`.
    var slots = EntityIndex()
    /// Every record's slot, sorted by (z-order key, EntityID), bottom first.
    var zOrderedSlots: [Int32] = []
    /// While a big batch applies (`apply(contentsOf:)`), the slots that are
    /// new or whose z-order key changed, put in order once at its end.
    var slotsToReorder: [Int32]?

    /// The highest op counter applied or taken (an insert of n characters
    /// takes n): a replica's clock must observe it.
    public internal(set) var highestCounter: UInt64 = 0
    /// The characters of texts edited one character at a time; a text not
    /// here is its `text` register (Docs/text.md).
    var texts: [EntityID: TextCharacters] = [:]
    /// How many entities are visible: kept as ops apply, since a view asks
    /// on every frame and a count of 50,000 records is a walk of them all.
    public private(set) var visibleCount = 0
    /// The slots of records whose `tool` was ever written as a pixel or
    /// blur eraser (visible or not, still an eraser or not): erasers are few
    /// and a renderer asks for them on every render, so it looks here, not
    /// through every record. Only ever grows, as records do; sorted by slot.
    var eraserCandidates: [Int32] = []

    public init() {}

    /// Applies one op. Commutative, associative and idempotent.
    ///
    /// O(1) expected for a set of a numeric field; a z-order key change
    /// also moves the entity in the z-order index, O(log n) comparisons plus
    /// an O(n) memory move. Ops should be checked at trust boundaries with
    /// `Op.validate()` or `validate(_:)`; apply itself only refuses what
    /// would make the state ill-formed (an append by someone other than the
    /// stroke's author, an empty chunk).
    @discardableResult
    public mutating func apply(_ op: Op) -> ApplyResult {
        let last = op.lastCounter
        if last > highestCounter { highestCounter = last }
        switch op.action {
        case .create(let kind, let fields):
            let result = keepingIndexes(of: EntityID(op.id)) {
                $0.create(EntityID(op.id), kind: kind, fields: fields, stamp: op.id)
            }
            if !texts.isEmpty, fields.contains(where: { $0.id == .text }) { rebaseText(of: EntityID(op.id)) }
            return result
        case .set(let entity, let field):
            let slot = slot(for: entity)
            let outcome: MergeOutcome
            if case .zKey = field {
                outcome = moveInZOrder(slot) { $0.merge(field, stampedAt: op.id) }
            } else {
                outcome = records[Int(slot)].merge(field, stampedAt: op.id)
                if case .text = field, outcome == .applied, !texts.isEmpty { rebaseText(of: entity) }
                if case .tool = field { noteTool(of: slot) }
            }
            return ApplyResult(outcome, created: records[Int(slot)].kind != nil)
        case .delete(let entity), .restore(let entity):
            let slot = Int(slot(for: entity))
            let alive = if case .restore = op.action { true } else { false }
            let wasVisible = records[slot].isVisible
            let outcome = records[slot].alive.merge(alive, stampedAt: op.id)
            countVisibility(of: slot, was: wasVisible)
            return ApplyResult(outcome, created: records[slot].kind != nil)
        case .append(let entity, let start, let samples):
            guard op.id.replica == entity.author else { return .refused(.notStrokeAuthor) }
            guard !samples.isEmpty else { return .refused(.invalidSamples("an append needs at least one sample")) }
            let slot = Int(slot(for: entity))
            let canonical = samples.map { StrokeSample(x: $0.x, y: $0.y, time: $0.time, force: $0.force) }
            let (outcome, waitsForGap) = records[slot].strokeSamples.merge(
                StrokeSamples.Chunk(start: start, samples: canonical, stamp: op.id))
            if outcome == .applied, waitsForGap { return .waitingForGap }
            return ApplyResult(outcome, created: records[slot].kind != nil)
        case .insertText(let entity, _), .deleteText(let entity, _):
            return applyText(op, to: entity)
        case .textSnapshot(let entity, let snapshot):
            return applyText(snapshot, to: entity, stamp: op.id)
        }
    }

    private mutating func create(_ entity: EntityID, kind: EntityKind, fields: [Field], stamp: OpID) -> ApplyResult {
        // A new entity is placed in the z-order once its fields are merged:
        // placed first (with no key, at the bottom) and then moved to its
        // key, each create would move the whole order twice.
        let isNew = slots[entity] == nil
        let slot = isNew ? appendRecord(for: entity) : slot(for: entity)
        defer { if isNew { placeInZOrder(slot) } }
        var outcome = MergeOutcome.duplicate
        if let existing = records[Int(slot)].kind {
            // Two creates with one OpID: only a misbehaving peer sends them,
            // but every replica must settle on the same kind.
            if existing.rawValue < kind.rawValue {
                records[Int(slot)].kind = kind
                outcome = .applied
            }
        } else {
            records[Int(slot)].kind = kind
            outcome = .applied
        }
        let merge: (inout EntityRecord) -> MergeOutcome = { record in
            var combined = record.alive.merge(true, stampedAt: stamp)
            if isNew { record.reserveRegisters(for: fields) }
            for field in fields {
                combined = combined.combined(with: record.merge(field, stampedAt: stamp))
            }
            return combined
        }
        let fieldsOutcome =
            if !isNew, fields.contains(where: { $0.id == .zKey }) {
                moveInZOrder(slot, merge)
            } else {
                merge(&records[Int(slot)])
            }
        return ApplyResult(outcome.combined(with: fieldsOutcome), created: true)
    }

    /// Runs a create, keeping the visible count and the eraser candidates
    /// true of the record it makes or changes.
    private mutating func keepingIndexes(
        of entity: EntityID, _ create: (inout Document) -> ApplyResult
    ) -> ApplyResult {
        let wasVisible = slots[entity].map { records[Int($0)].isVisible } ?? false
        let result = create(&self)
        if let slot = slots[entity] {
            countVisibility(of: slot, was: wasVisible)
            noteTool(of: slot)
        }
        return result
    }

    private mutating func countVisibility(of slot: some BinaryInteger, was wasVisible: Bool) {
        let isVisible = records[Int(slot)].isVisible
        if isVisible != wasVisible { visibleCount += isVisible ? 1 : -1 }
    }

    private mutating func noteTool(of slot: Int32) {
        let tool = records[Int(slot)].tool.value
        guard tool == .eraser || tool == .blur else { return }
        // A plain array, not a set: erasers are few, and a set's code would
        // add 5 kB to the WebAssembly module.
        var low = 0, high = eraserCandidates.count
        while low < high {
            let middle = (low + high) / 2
            if eraserCandidates[middle] < slot { low = middle + 1 } else { high = middle }
        }
        if low == eraserCandidates.count || eraserCandidates[low] != slot { eraserCandidates.insert(slot, at: low) }
    }

    /// The slot of `entity`'s record, adding an empty record the first time
    /// the entity is named (by its create or by an op that overtook it).
    mutating func slot(for entity: EntityID) -> Int32 {
        if let slot = slots[entity] { return slot }
        let slot = appendRecord(for: entity)
        placeInZOrder(slot)
        return slot
    }

    /// A new, empty record for `entity`, not yet in the z-order.
    private mutating func appendRecord(for entity: EntityID) -> Int32 {
        let slot = Int32(records.count)
        records.append(EntityRecord(id: entity))
        slots.insert(entity, slot: slot)
        return slot
    }

    private mutating func placeInZOrder(_ slot: Int32) {
        if slotsToReorder != nil {
            slotsToReorder?.append(slot)
        } else {
            zOrderedSlots.insert(slot, at: zOrderInsertionIndex(of: slot))
        }
    }

    /// Runs `change` on a record whose z-order key it may change, keeping
    /// `zOrderedSlots` sorted.
    private mutating func moveInZOrder(_ slot: Int32, _ change: (inout EntityRecord) -> MergeOutcome) -> MergeOutcome {
        let oldKey = records[Int(slot)].zKey.value
        if slotsToReorder != nil {
            let outcome = change(&records[Int(slot)])
            if records[Int(slot)].zKey.value != oldKey { slotsToReorder?.append(slot) }
            return outcome
        }
        // Found before the change: the search reads the record's own key.
        let oldIndex = zOrderInsertionIndex(of: slot)
        let outcome = change(&records[Int(slot)])
        if records[Int(slot)].zKey.value != oldKey {
            zOrderedSlots.remove(at: oldIndex)
            zOrderedSlots.insert(slot, at: zOrderInsertionIndex(of: slot))
        }
        return outcome
    }

    /// Runs `body` with the z-order kept in order once at its end, not after
    /// every op: one pass over the order and a sort of the slots that moved,
    /// where each op's insert and remove would move half the order.
    mutating func reorderingOnce(_ body: (inout Document) -> Void) {
        guard slotsToReorder == nil else { return body(&self) }
        slotsToReorder = []
        body(&self)
        guard let moved = slotsToReorder else { return }
        slotsToReorder = nil
        guard !moved.isEmpty else { return }
        var isMoved = [Bool](repeating: false, count: records.count)
        var movedInOrder: [Int32] = []
        movedInOrder.reserveCapacity(moved.count)
        for slot in moved where !isMoved[Int(slot)] {
            isMoved[Int(slot)] = true
            movedInOrder.append(slot)
        }
        movedInOrder.sort { isBelow($0, $1) }
        var merged: [Int32] = []
        merged.reserveCapacity(records.count)
        var next = 0
        for slot in zOrderedSlots where !isMoved[Int(slot)] {
            while next < movedInOrder.count, isBelow(movedInOrder[next], slot) {
                merged.append(movedInOrder[next])
                next += 1
            }
            merged.append(slot)
        }
        merged.append(contentsOf: movedInOrder[next...])
        zOrderedSlots = merged
    }

    /// Whether a record lies below another in the z-order, visible or not.
    func isBelow(_ slot: Int32, _ other: Int32) -> Bool {
        let record = records[Int(slot)], otherRecord = records[Int(other)]
        return record.zKey.value != otherRecord.zKey.value
            ? record.zKey.value < otherRecord.zKey.value : record.id < otherRecord.id
    }

    /// Index in `zOrderedSlots` of the first slot not below (key, id).
    func lowerBound(key: ZKey, id: EntityID) -> Int {
        var low = 0
        var high = zOrderedSlots.count
        while low < high {
            let middle = (low + high) / 2
            let record = records[Int(zOrderedSlots[middle])]
            let below = record.zKey.value != key ? record.zKey.value < key : record.id < id
            if below { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func zOrderInsertionIndex(of slot: Int32) -> Int {
        lowerBound(key: records[Int(slot)].zKey.value, id: records[Int(slot)].id)
    }
}

extension MergeOutcome {
    /// The outcome of one op's several merges: applied if any applied;
    /// otherwise duplicate if any register already held this very write
    /// (stamps are unique, so the op was applied before); else superseded.
    func combined(with other: MergeOutcome) -> MergeOutcome {
        switch (self, other) {
        case (.applied, _), (_, .applied): .applied
        case (.duplicate, _), (_, .duplicate): .duplicate
        default: .superseded
        }
    }
}
