extension Document {
    /// The visible entity with this ID, or nil if it is deleted, not yet
    /// created, or unknown. O(1) expected (plus the samples of a stroke).
    public subscript(id: EntityID) -> Entity? {
        slots[id].flatMap { entity(at: $0) }
    }

    /// Whether the entity is created and not deleted. O(1) expected, and
    /// unlike the subscript it builds no `Entity` (nor copies a stroke's samples).
    public func isVisible(_ id: EntityID) -> Bool {
        slots[id].map { records[Int($0)].isVisible } ?? false
    }

    /// Visible entities, bottom of the z-order first. O(n).
    public var entities: [Entity] {
        zOrderedSlots.compactMap { entity(at: $0) }
    }

    /// Visible entities, bottom of the z-order first, one at a time:
    /// `entities` without the array, which at 50,000 entities is about 5 MB
    /// (in the WebAssembly module, memory kept from its peak). O(n).
    public func forEachEntity(_ body: (Entity) -> Void) {
        for slot in zOrderedSlots {
            if let entity = entity(at: slot) { body(entity) }
        }
    }

    /// The visible entity directly above a visible one in the z-order; nil
    /// when it is on top or not visible. O(log n), plus the records of
    /// deleted entities between them: a view can put one entity in its place
    /// without walking the whole order.
    public func entity(above id: EntityID) -> EntityID? {
        guard let slot = slots[id], records[Int(slot)].isVisible else { return nil }
        var index = lowerBound(key: records[Int(slot)].zKey.value, id: id) + 1
        while index < zOrderedSlots.count {
            let record = Int(zOrderedSlots[index])
            if records[record].isVisible { return records[record].id }
            index += 1
        }
        return nil
    }

    /// The visible entity directly below a visible one in the z-order; nil
    /// when it is at the bottom or not visible. O(log n), plus the records
    /// of deleted entities between them.
    public func entity(below id: EntityID) -> EntityID? {
        guard let slot = slots[id], records[Int(slot)].isVisible else { return nil }
        var index = lowerBound(key: records[Int(slot)].zKey.value, id: id) - 1
        while index >= 0 {
            let record = Int(zOrderedSlots[index])
            if records[record].isVisible { return records[record].id }
            index -= 1
        }
        return nil
    }

    /// The nearest visible entity above (`upwards`) or below an entity, not
    /// an eraser, whose box meets its box, if one comes before any entity of
    /// `set`: what bring forward or send backward moves it past, without
    /// passing another selected entity (so a selection keeps its order).
    /// O(n) at worst.
    public func nearestOverlapping(_ id: EntityID, upwards: Bool, before set: Set<EntityID>) -> EntityID? {
        guard let slot = slots[id], let bounds = geometry(of: records[Int(slot)])?.documentBounds else { return nil }
        let step = upwards ? 1 : -1
        var index = lowerBound(key: records[Int(slot)].zKey.value, id: id) + step
        while zOrderedSlots.indices.contains(index) {
            let record = records[Int(zOrderedSlots[index])]
            index += step
            guard record.isVisible, !record.isEraser else { continue }
            if set.contains(record.id) { return nil }
            if let geometry = geometry(of: record), geometry.documentBounds.intersects(bounds) { return record.id }
        }
        return nil
    }

    /// Whether bring forward (`upwards`) or send backward would move an
    /// entity of `set`: some visible entity outside it, not an eraser, meets
    /// the box of the nearest entity of the set before it in that direction.
    /// One walk of the z-order, building geometry only past the set's first
    /// entity: a toolbar asks on every change.
    func hasOverlapping(beyond set: Set<EntityID>, upwards: Bool) -> Bool {
        var nearest: Rect?
        let step = upwards ? 1 : -1
        var index = upwards ? 0 : zOrderedSlots.count - 1
        while zOrderedSlots.indices.contains(index) {
            let record = records[Int(zOrderedSlots[index])]
            index += step
            guard record.isVisible, !record.isEraser else { continue }
            let inSet = set.contains(record.id)
            guard inSet || nearest != nil, let bounds = geometry(of: record)?.documentBounds else { continue }
            if inSet {
                nearest = bounds
            } else if let nearest, nearest.intersects(bounds) {
                return true
            }
        }
        return false
    }

    /// Whether a visible entity outside `set` lies above (`upwards`) or below
    /// some visible entity in it. Walks the z-order from the far end once,
    /// building nothing: a toolbar asks on every frame.
    func hasOther(than set: Set<EntityID>, beyondOneOf upwards: Bool) -> Bool {
        var passedOne = false
        func visit(_ slot: Int32) -> Bool {
            let index = Int(slot)
            guard records[index].isVisible else { return false }
            if set.contains(records[index].id) {
                passedOne = true
                return false
            }
            return passedOne
        }
        return upwards ? zOrderedSlots.contains(where: visit) : zOrderedSlots.reversed().contains(where: visit)
    }

    /// IDs of the visible entities, bottom of the z-order first. O(n).
    public var zOrder: [EntityID] {
        zOrderedSlots.compactMap { slot in
            let record = records[Int(slot)]
            return record.isVisible ? record.id : nil
        }
    }

    /// How many entities the document has a record of (as `knownEntities`,
    /// with the document's own). O(1).
    public var recordCount: Int { records.count }

    /// Every entity the document has a record of: visible, deleted, or
    /// named by an op whose create has not arrived. Order of first sight.
    public var knownEntities: [EntityID] {
        records.compactMap { $0.id == .document ? nil : $0.id }
    }

    /// The kind of an entity whose create has arrived (deleted or not).
    public func kind(of id: EntityID) -> EntityKind? {
        slots[id].flatMap { records[Int($0)].kind }
    }

    /// Whether the entity was created and is deleted now.
    public func isDeleted(_ id: EntityID) -> Bool {
        guard let slot = slots[id] else { return false }
        return records[Int(slot)].kind != nil && !records[Int(slot)].alive.value
    }

    /// A field's current value and the op that wrote it (`OpID.unwritten`
    /// for a default nobody wrote). Nil for an unknown entity. O(1) expected.
    public func register(_ field: FieldID, of id: EntityID) -> (value: Field, stamp: OpID)? {
        if let slot = slots[id] { return records[Int(slot)].read(field) }
        // The document itself has every register from the start.
        return id == .document ? EntityRecord(id: id).read(field) : nil
    }

    /// The entity's `alive` flag and the op that wrote it.
    public func aliveRegister(of id: EntityID) -> (alive: Bool, stamp: OpID)? {
        slots[id].map { (records[Int($0)].alive.value, records[Int($0)].alive.stamp) }
    }

    /// Checks an op against this document, as a server must before accepting
    /// it: everything `Op.validate()` checks, plus that the entity exists,
    /// that the field belongs to its kind, and that only a stroke's author
    /// appends to it.
    public func validate(_ op: Op) throws(ModelError) {
        try op.validate()
        if case .create = op.action { return }
        let entity = op.entity
        if entity == .document { return }
        guard let kind = kind(of: entity) else { throw .unknownEntity(entity) }
        switch op.action {
        case .set(_, let field):
            guard kind.has(field.id) else { throw .fieldNotInKind(field.id, kind) }
        case .append:
            guard kind == .stroke else { throw .invalidSamples("a \(kind) has no samples") }
            guard op.id.replica == entity.author else { throw .notStrokeAuthor }
        case .create, .delete, .restore:
            break
        case .insertText(_, let insertion):
            guard kind == .text else { throw .invalidText("a \(kind) has no characters") }
            let sequence = textSequenceForEditing(of: entity)
            for origin in [insertion.originLeft, insertion.originRight] {
                guard let origin else { continue }
                guard sequence.contains(origin) else { throw .invalidText("no character \(origin) in \(entity)") }
            }
            guard sequence.totalCount + insertion.scalars.count <= ModelLimits.charactersPerText else {
                throw .invalidText("\(entity) would have more than \(ModelLimits.charactersPerText) characters")
            }
        case .deleteText(_, let runs):
            guard kind == .text else { throw .invalidText("a \(kind) has no characters") }
            let sequence = textSequenceForEditing(of: entity)
            for run in runs {
                guard sequence.containsAll(run) else { throw .invalidText("\(entity) has no characters \(run)") }
            }
        case .textSnapshot:
            // Snapshots come from a store, never from an editor.
            throw .invalidText("a text's snapshot is never an edit: type with insertText and deleteText")
        }
        // Once a text's characters merge, its string is edited through
        // them: a write of the whole string would start them over.
        if case .set(_, .text) = op.action, texts[entity] != nil {
            throw .invalidText("\(entity)'s characters are edited one by one (insertText, deleteText)")
        }
    }
}

extension Document {
    /// The first index at which `chunk` contradicts the samples a stroke
    /// holds (accepted ones, waiting past a gap or not), or nil when it
    /// agrees with all it overlaps: what a server checks before accepting
    /// an append. O(log n + overlap).
    public func firstSampleDisagreement(of id: EntityID, with chunk: SampleChunk) -> UInt32? {
        guard let slot = slots[id] else { return nil }
        return records[Int(slot)].strokeSamples.accepted.firstDisagreement(with: chunk)
    }

    /// How many of a stroke's samples are reachable from index 0, deleted
    /// or not: where its author's next append belongs.
    public func contiguousSampleCount(of id: EntityID) -> UInt32? {
        slots[id].map { records[Int($0)].strokeSamples.contiguousCount }
    }
}

extension Document {
    /// The visible pixel and blur eraser strokes that recorded nothing of
    /// what they erased (drawn before erasures belonged to what they
    /// erased), bottom of the z-order first, each with its place in the
    /// order: a renderer masks everything beneath them, as when they were
    /// drawn. O(e log e) for e strokes ever written as erasers, building no
    /// entity.
    public var erasingStrokes: [(id: EntityID, zKey: ZKey)] {
        // Read in place: a copy of each record would retain its arrays.
        eraserSlotsInZOrder.compactMap { slot in
            let record = records[Int(slot)]
            return record.erases.isWritten ? nil : (record.id, record.zKey.value)
        }
    }

    /// The visible pixel and blur eraser strokes that recorded what they
    /// erased, bottom of the z-order first: each hole belongs to the entity
    /// it names, wherever that entity is now. O(e log e) for e strokes ever
    /// written as erasers, building no entity.
    public var erasures: [(eraser: EntityID, tool: StrokeTool, erased: [ErasedEntity])] {
        eraserSlotsInZOrder.compactMap { slot in
            let record = records[Int(slot)]
            return record.erases.isWritten ? (record.id, record.tool.value, record.erases.value) : nil
        }
    }

    /// The slots of the visible erasers, bottom of the z-order first.
    private var eraserSlotsInZOrder: [Int32] {
        var erasers = eraserCandidates.filter { records[Int($0)].isEraser }
        erasers.sort { isBelow($0, $1) }
        return erasers
    }

    /// Whether the entity is a visible pixel or blur eraser stroke. O(1)
    /// expected, building no entity.
    public func isEraser(_ id: EntityID) -> Bool {
        slots[id].map { records[Int($0)].isEraser } ?? false
    }

    /// Whether an entity lies below another in the z-order, both visible.
    public func isBelow(_ id: EntityID, _ other: EntityID) -> Bool {
        guard let slot = slots[id], let otherSlot = slots[other] else { return false }
        let record = records[Int(slot)]
        let otherRecord = records[Int(otherSlot)]
        guard record.isVisible, otherRecord.isVisible else { return false }
        return (record.zKey.value, id) < (otherRecord.zKey.value, other)
    }

    /// The visible entities below one in the z-order whose boxes meet a
    /// rectangle, bottom first: what a blur eraser there blurs. O(n).
    public func entities(below id: EntityID, meeting area: Rect) -> [EntityID] {
        var found: [EntityID] = []
        for slot in zOrderedSlots {
            let record = records[Int(slot)]
            if record.id == id { break }
            guard let geometry = geometry(of: record), geometry.documentBounds.intersects(area) else { continue }
            found.append(record.id)
        }
        return found
    }
}
