import EaselModel

extension ByteWriter {
    /// Writes `ops` as an op batch. Cost: O(ops + fields + samples), with
    /// the two tables as the only allocations besides the output.
    mutating func opBatch(_ ops: some Collection<Op>) {
        var tables = BatchTables()
        for op in ops { tables.register(op) }

        varint(tables.replicas.count)
        for replica in tables.replicas { uint64(replica.rawValue) }
        varint(tables.entities.count)
        for entity in tables.entities {
            varint(tables.replicaIndex[entity.author] ?? 0)
            varint(entity.creation.counter)
        }

        varint(ops.count)
        var previous: (replica: Int, counter: UInt64, transaction: TransactionID?) = (0, 0, nil)
        for op in ops {
            let replica = tables.replicaIndex[op.id.replica] ?? 0
            var header = op.action.tag.rawValue
            if replica != previous.replica { header |= OpBatch.replicaFollows }
            let counterDelta = op.id.counter &- previous.counter
            if counterDelta != 1 { header |= OpBatch.counterFollows }
            let mode: OpBatch.TransactionMode =
                if op.transaction == previous.transaction { .previous } else if op.transaction.first == op.id {
                    .own
                } else { .explicit }
            header |= mode.rawValue << OpBatch.transactionShift
            byte(header)

            if header & OpBatch.replicaFollows != 0 { varint(replica) }
            if header & OpBatch.counterFollows != 0 { signedVarint(Int64(bitPattern: counterDelta)) }
            if mode == .explicit {
                varint(tables.replicaIndex[op.transaction.first.replica] ?? 0)
                varint(op.transaction.first.counter)
            }
            actionBody(op.action, tables: tables)
            previous = (replica, op.id.counter, op.transaction)
        }
    }

    private mutating func actionBody(_ action: Op.Action, tables: BatchTables) {
        switch action {
        case .create(let kind, let fields):
            byte(kind.rawValue)
            varint(fields.count)
            for field in fields { self.field(field) }
        case .set(let entity, let field):
            varint(tables.entityIndex[entity] ?? 0)
            self.field(field)
        case .delete(let entity), .restore(let entity):
            varint(tables.entityIndex[entity] ?? 0)
        case .append(let entity, let start, let samples):
            varint(tables.entityIndex[entity] ?? 0)
            varint(start)
            varint(samples.count)
            appendSamples(samples)
        }
    }

    private mutating func appendSamples(_ samples: [StrokeSample]) {
        let forces = samples.count { $0.force != nil }
        if forces == 0 {
            byte(OpBatch.noForce)
        } else if forces == samples.count {
            byte(OpBatch.everyForce)
        } else {
            byte(OpBatch.forceBitmap)
            var bits: UInt8 = 0
            for (index, sample) in samples.enumerated() {
                if sample.force != nil { bits |= 1 << (index % 8) }
                if index % 8 == 7 || index == samples.count - 1 {
                    byte(bits)
                    bits = 0
                }
            }
        }
        for sample in samples {
            float(sample.x)
            float(sample.y)
            float(sample.time)
            if let force = sample.force { float(force) }
        }
    }
}

/// The replicas and entities a batch names, in order of first use, so the
/// same ops always give the same bytes.
private struct BatchTables {
    var replicas: [ReplicaID] = []
    var replicaIndex: [ReplicaID: Int] = [:]
    var entities: [EntityID] = []
    var entityIndex: [EntityID: Int] = [:]

    mutating func register(_ op: Op) {
        register(op.id.replica)
        register(op.transaction.first.replica)
        switch op.action {
        case .create: break
        case .set(let entity, _), .delete(let entity), .restore(let entity), .append(let entity, _, _):
            register(entity.author)
            if entityIndex[entity] == nil {
                entityIndex[entity] = entities.count
                entities.append(entity)
            }
        }
    }

    private mutating func register(_ replica: ReplicaID) {
        if replicaIndex[replica] == nil {
            replicaIndex[replica] = replicas.count
            replicas.append(replica)
        }
    }
}
