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
        received.forEachInOrder(
            numberSet: { set in
                var slot = slotOfEntry[Int(set.entry)]
                if slot < 0 {
                    slot = self.slot(for: received.entities[Int(set.entry)])
                    slotOfEntry[Int(set.entry)] = slot
                }
                if set.id.counter > highestCounter { highestCounter = set.id.counter }
                _ = records[Int(slot)].merge(number: set.value, into: set.field, stampedAt: set.id)
            },
            other: { apply($0) })
    }
}
