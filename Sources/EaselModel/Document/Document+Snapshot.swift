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
            ops.append(
                Op(id: latestStamp, transaction: TransactionID(latestStamp), action: .textSnapshot(entity, piece)))
        }
    }
}

extension EntityRecord {
    /// Two passes over the written registers, the create's fields then the
    /// later writes, so that nothing but the ops and the create's field
    /// list is allocated: a joiner's welcome of a 20,000-entity document is
    /// built on the service thread.
    fileprivate func appendSnapshotOps(to ops: inout [Op]) {
        let creation = id.creation
        // A field the create wrote stays in the create, unless it is one
        // the kind lacks (only a misbehaving peer writes those with the
        // create's ID; a create carrying it would not validate).
        func isCreated(_ field: FieldID, _ stamp: OpID) -> Bool {
            stamp == creation && kind?.has(field) == true
        }
        if let kind {
            var createdFields: [Field] = []
            createdFields.reserveCapacity(5 + written.registers.count)
            forEachWrittenField { field, stamp in
                if isCreated(field.id, stamp) { createdFields.append(field) }
            }
            ops.append(Op(id: creation, transaction: TransactionID(creation), action: .create(kind, createdFields)))
        }
        forEachWrittenField { field, stamp in
            guard !isCreated(field.id, stamp) else { return }
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
        guard !strokeSamples.isEmpty else { return }
        for chunk in strokeSamples.ordered {
            ops.append(
                Op(
                    id: chunk.stamp, transaction: TransactionID(chunk.stamp),
                    action: .append(id, start: chunk.start, samples: chunk.samples)))
        }
    }

    /// Every written field with its stamp, in tag order.
    private func forEachWrittenField(_ body: (Field, OpID) -> Void) {
        if x.isWritten { body(.x(x.value), x.stamp) }
        if y.isWritten { body(.y(y.value), y.stamp) }
        if scale.isWritten { body(.scale(scale.value), scale.stamp) }
        if rotation.isWritten { body(.rotation(rotation.value), rotation.stamp) }
        if zKey.isWritten { body(.zKey(zKey.value), zKey.stamp) }
        for register in written.registers where register.isWritten { body(register.value, register.stamp) }
    }
}
