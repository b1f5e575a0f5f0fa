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
    /// The characters as a snapshot carries them, base string included
    /// (so a replica loading them need not merge them into the register's),
    /// in pieces within the limits, each stamped with the latest op that
    /// changed the text (Docs/text.md).
    fileprivate func appendSnapshotOps(of entity: EntityID, to ops: inout [Op]) {
        for piece in sequence.snapshot {
            ops.append(Op(id: latestStamp, transaction: TransactionID(latestStamp), action: .textSnapshot(entity, piece)))
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
