extension Document {
    /// The state as ops: applied to an empty document, in any order, they
    /// give this document's state exactly (equal canonical encodings), and
    /// any op applied afterwards merges as it would have into the full
    /// history — a superseded op stays superseded, a duplicate stays a
    /// duplicate.
    ///
    /// For each entity: its create, carrying the fields still as created;
    /// one op per register written later, stamped with that write's OpID;
    /// every stroke chunk, waiting and set-aside ones included. Ops overwritten by later
    /// writes are gone, which is what makes a snapshot smaller than a log.
    /// Each op is its own transaction (a snapshot keeps no undo history).
    /// O(n) in the size of the state.
    public var snapshotOps: [Op] {
        var ops: [Op] = []
        ops.reserveCapacity(records.count * 4)
        for record in records {
            record.appendSnapshotOps(to: &ops)
            texts[record.id]?.appendSnapshotOps(of: record.id, to: &ops)
        }
        return ops
    }
}

extension TextCharacters {
    /// The characters typed since the base string (the register's own op
    /// gives that), as runs in document order; then one delete of every
    /// deleted character, stamped with the latest delete. Runs and deletes
    /// longer than one op may carry are cut into several: cut runs keep
    /// their IDs; cut deletes share the stamp, which a delete only carries.
    fileprivate func appendSnapshotOps(of entity: EntityID, to ops: inout [Op]) {
        var deleted: [CharacterRun] = []
        for run in sequence.runs {
            if run.isDeleted { deleted.append(CharacterRun(first: run.insert.id, count: run.insert.scalars.count)) }
            guard let insert = typedPart(of: run.insert) else { continue }
            var offset = 0
            while offset < insert.scalars.count {
                let end = min(offset + ModelLimits.scalarsPerInsert, insert.scalars.count)
                let id = insert.id.advanced(by: offset)
                let insertion = TextInsertion(
                    originLeft: offset == 0 ? insert.originLeft : insert.id.advanced(by: offset - 1),
                    originRight: insert.originRight, scalars: Array(insert.scalars[offset..<end]))
                ops.append(Op(id: id, transaction: TransactionID(id), action: .insertText(entity, insertion)))
                offset = end
            }
        }
        guard let stamp = latestDelete else { return }
        var offset = 0
        while offset < deleted.count {
            let end = min(offset + ModelLimits.runsPerDelete, deleted.count)
            ops.append(
                Op(id: stamp, transaction: TransactionID(stamp), action: .deleteText(entity, Array(deleted[offset..<end]))))
            offset = end
        }
    }
}

extension EntityRecord {
    fileprivate func appendSnapshotOps(to ops: inout [Op]) {
        let creation = id.creation
        var laterWrites: [(Field, OpID)] = []
        var createdFields: [Field] = []
        for fieldID in FieldID.allCases {
            let (field, stamp) = read(fieldID)
            guard stamp != .unwritten else { continue }
            // A field the create wrote stays in the create, unless it is one
            // the kind lacks (only a misbehaving peer writes those with the
            // create's ID; a create carrying it would not validate).
            if stamp == creation, let kind, kind.has(fieldID) {
                createdFields.append(field)
            } else {
                laterWrites.append((field, stamp))
            }
        }
        if let kind {
            ops.append(Op(id: creation, transaction: TransactionID(creation), action: .create(kind, createdFields)))
        }
        for (field, stamp) in laterWrites {
            ops.append(Op(id: stamp, transaction: TransactionID(stamp), action: .set(id, field)))
        }
        // The create itself writes alive = true; anything else is a delete
        // or restore of its own.
        if alive.isWritten, !(kind != nil && alive.stamp == creation && alive.value) {
            let action: Op.Action = alive.value ? .restore(id) : .delete(id)
            ops.append(Op(id: alive.stamp, transaction: TransactionID(alive.stamp), action: action))
        }
        // In the order they are taken in, so a replica loading the
        // snapshot never rebuilds a stroke's runs, set-aside chunks or not.
        for chunk in strokeSamples.ordered {
            ops.append(
                Op(
                    id: chunk.stamp, transaction: TransactionID(chunk.stamp),
                    action: .append(id, start: chunk.start, samples: chunk.samples)))
        }
    }
}
