extension Document {
    /// Applies a received batch: the same state as applying each of its
    /// ops in turn, but each entity the number sets name is looked up once
    /// a batch, and a number set goes straight to its register.
    ///
    /// O(ops + entities) expected, plus what the other ops cost.
    public mutating func apply(_ received: ReceivedOps) {
        if received.count >= Self.batchReorderedOnce {
            reorderingOnce { document in document.applyInTurn(received) }
        } else {
            applyInTurn(received)
        }
    }

    private mutating func applyInTurn(_ received: ReceivedOps) {
        // -1 until an entry is first used: an entity the table names but
        // no op does must not get a record.
        var slotOfEntry = [Int32](repeating: -1, count: received.entities.count)
        // Plain loops, not a walk taking closures: the WebAssembly build
        // called a closure for every op.
        var next = 0
        for (other, follows) in received.othersFollow.enumerated() {
            applyNumberSets(received, next..<Int(follows), slots: &slotOfEntry)
            apply(received.others[other])
            next = Int(follows)
        }
        applyNumberSets(received, next..<received.numberSets.count, slots: &slotOfEntry)
    }

    @inline(__always)
    private mutating func applyNumberSets(
        _ received: ReceivedOps, _ range: Range<Int>, slots slotOfEntry: inout [Int32]
    ) {
        // Slots first, since finding one may add a record; then every
        // write through one pointer to the records, made unique once
        // rather than checked for each write.
        for index in range where slotOfEntry[Int(received.numberSets[index].entry)] < 0 {
            let entry = Int(received.numberSets[index].entry)
            slotOfEntry[entry] = slot(for: received.entities[entry])
        }
        var highest = highestCounter
        records.withUnsafeMutableBufferPointer { records in
            for index in range {
                let set = received.numberSets[index]
                if set.id.counter > highest { highest = set.id.counter }
                _ = records[Int(slotOfEntry[Int(set.entry)])].merge(
                    number: set.value, into: set.field, stampedAt: set.id)
            }
        }
        highestCounter = highest
    }
}
