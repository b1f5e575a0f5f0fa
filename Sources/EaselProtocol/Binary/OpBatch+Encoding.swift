import EaselModel

extension ByteWriter {
    /// Writes `ops` as an op batch. Cost: O(ops + fields + samples), with
    /// the two tables as the only allocations besides the output.
    mutating func opBatch(_ ops: some Collection<Op>) {
        opBatch(ops, positions: [UInt64]?.none)
    }

    /// One op as a batch of one: the bytes `opBatch` writes for it, with no
    /// tables built. Storage keeps every op this way; through the tables a
    /// one-op batch took about 6,000 instructions (callgrind, `easel serve`
    /// at one set a push), most of them allocating and freeing six arrays.
    /// Ops on characters name replicas the tables order, and go that way.
    mutating func singleOpBatch(_ op: Op) {
        let entity: EntityID?
        switch op.action {
        case .create: entity = nil
        case .set(let named, _), .delete(let named), .restore(let named), .append(let named, _, _): entity = named
        case .insertText, .deleteText, .textSnapshot: return opBatch(CollectionOfOne(op))
        }
        // The replica table in order of first use, as `BatchTables.register`
        // meets them: the op's, its transaction's, its entity's author.
        let replica = op.id.replica
        let transactionReplica = op.transaction.first.replica
        let transactionIndex = transactionReplica == replica ? 0 : 1
        let author = entity?.author
        let authorIsNew = author != nil && author != replica && author != transactionReplica
        let authorIndex =
            if author == replica { 0 } else if author == transactionReplica { 1 } else { transactionIndex + 1 }
        varint(transactionIndex + (authorIsNew ? 2 : 1))
        uint64(replica.rawValue)
        if transactionIndex == 1 { uint64(transactionReplica.rawValue) }
        if authorIsNew, let author { uint64(author.rawValue) }
        if let entity {
            varint(1)
            varint(authorIndex)
            varint(entity.creation.counter)
        } else {
            varint(0)
        }

        varint(1)
        // As the first op of a batch: replica index 0, counter from 0, no
        // transaction before it.
        var header = op.action.tag.headerBits
        if op.id.counter != 1 { header |= OpBatch.counterFollows }
        let mode: OpBatch.TransactionMode = op.transaction.first == op.id ? .own : .explicit
        header |= mode.rawValue << OpBatch.transactionShift
        byte(header)
        if op.id.counter != 1 { signedVarint(Int64(bitPattern: op.id.counter)) }
        if mode == .explicit {
            varint(transactionIndex)
            varint(op.transaction.first.counter)
        }
        actionBody(op, entity: entity == nil ? -1 : 0, tables: BatchTables(capacity: 0))
    }

    /// Positioned ops (4.4): each op preceded by its position's difference
    /// from the previous op's.
    mutating func positionedOps(_ ops: [PositionedOp]) {
        opBatch(ops.lazy.map({ $0.op }), positions: ops.lazy.map({ $0.position }))
    }

    private mutating func opBatch(
        _ ops: some Collection<Op>, positions: (some Collection<UInt64>)?
    ) {
        var tables = BatchTables(capacity: ops.count)
        for op in ops { tables.register(op) }

        varint(tables.replicas.count)
        for replica in tables.replicas { uint64(replica.rawValue) }
        varint(tables.entities.count)
        for (entity, replica) in zip(tables.entities, tables.entityReplicas) {
            varint(replica)
            varint(entity.creation.counter)
        }

        varint(ops.count)
        var previous: (replica: Int, counter: UInt64, transaction: TransactionID?) = (0, 0, nil)
        var positionIterator = positions?.makeIterator()
        var previousPosition: UInt64 = 0
        for (index, op) in ops.enumerated() {
            if let position = positionIterator?.next() {
                varint(position &- previousPosition)
                previousPosition = position
            }
            let replica = Int(tables.opReplicas[index])
            var header = op.action.tag.headerBits
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
                varint(tables.transactionReplicas[index])
                varint(op.transaction.first.counter)
            }
            actionBody(op, entity: tables.opEntities[index], tables: tables)
            previous = (replica, op.id.counter, op.transaction)
        }
    }

    private mutating func actionBody(_ op: Op, entity index: Int32, tables: BatchTables) {
        switch op.action {
        case .create(let kind, let fields):
            byte(kind.rawValue)
            varint(fields.count)
            for field in fields { self.field(field) }
        case .set(_, let field):
            varint(index)
            self.field(field)
        case .delete, .restore:
            varint(index)
        case .append(_, let start, let samples):
            varint(index)
            varint(start)
            varint(samples.count)
            appendSamples(samples)
        case .insertText(_, let insertion):
            varint(index)
            let typesOn =
                op.id.counter > 1 && insertion.originLeft == OpID(counter: op.id.counter - 1, replica: op.id.replica)
            var flags: UInt8 = typesOn ? OpBatch.typesOn : 0
            if insertion.originLeft != nil { flags |= OpBatch.hasOriginLeft }
            if insertion.originRight != nil { flags |= OpBatch.hasOriginRight }
            byte(flags)
            if !typesOn, let left = insertion.originLeft { characterID(left, tables: tables) }
            if let right = insertion.originRight { characterID(right, tables: tables) }
            string(insertion.withUTF8 { utf8, _ in String(decoding: utf8, as: UTF8.self) })
        case .deleteText(_, let runs):
            varint(index)
            varint(runs.count)
            for run in runs {
                characterID(run.first, tables: tables)
                varint(run.count)
            }
        case .textSnapshot(_, let snapshot):
            byte(OpBatch.ActionTag.textSnapshot.rawValue)
            varint(index)
            textSnapshot(snapshot, tables: tables)
        }
    }

    /// A character's ID: its replica's index in the table, and its counter.
    private mutating func characterID(_ id: OpID, tables: BatchTables) {
        varint(tables.existingIndex(of: id.replica))
        varint(id.counter)
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
/// same ops always give the same bytes; and each op's indices into them,
/// found once.
struct BatchTables {
    var replicas: [ReplicaID] = []
    var entities: [EntityID] = []
    var entityReplicas: [Int32] = []
    var opReplicas: [Int32] = []
    var transactionReplicas: [Int32] = []
    /// -1 for a create, which names no entity.
    var opEntities: [Int32] = []
    private var entityIndex: [EntityID: Int32] = [:]
    private var recentReplica: (id: ReplicaID, index: Int32)?

    init(capacity: Int) {
        opReplicas.reserveCapacity(capacity)
        transactionReplicas.reserveCapacity(capacity)
        opEntities.reserveCapacity(capacity)
    }

    mutating func register(_ op: Op) {
        opReplicas.append(index(of: op.id.replica))
        transactionReplicas.append(index(of: op.transaction.first.replica))
        switch op.action {
        case .create:
            opEntities.append(-1)
        case .set(let entity, _), .delete(let entity), .restore(let entity), .append(let entity, _, _),
            .insertText(let entity, _), .deleteText(let entity, _), .textSnapshot(let entity, _):
            registerCharacters(of: op.action)
            if let known = knownIndex(of: entity) {
                opEntities.append(known)
            } else {
                let index = Int32(entities.count)
                if entities.count >= Self.entitiesScanned {
                    if entityIndex.isEmpty {
                        for (index, entity) in entities.enumerated() { entityIndex[entity] = Int32(index) }
                    }
                    entityIndex[entity] = index
                }
                entities.append(entity)
                entityReplicas.append(self.index(of: entity.author))
                opEntities.append(index)
            }
        }
    }

    /// Entities a table holds before it indexes them: most batches are a
    /// push of a few ops on one or two entities, where building a
    /// dictionary costs more than scanning.
    private static let entitiesScanned = 8

    private func knownIndex(of entity: EntityID) -> Int32? {
        if entities.count <= Self.entitiesScanned {
            return entities.firstIndex(of: entity).map { Int32($0) }
        }
        return entityIndex[entity]
    }

    /// The replicas of the characters a text op names go in the table too.
    private mutating func registerCharacters(of action: Op.Action) {
        switch action {
        case .insertText(_, let insertion):
            if let left = insertion.originLeft { _ = index(of: left.replica) }
            if let right = insertion.originRight { _ = index(of: right.replica) }
        case .deleteText(_, let runs):
            for run in runs { _ = index(of: run.first.replica) }
        case .textSnapshot(_, let snapshot):
            for run in snapshot.runs {
                _ = index(of: run.first.replica)
                if let left = run.originLeft { _ = index(of: left.replica) }
                if let right = run.originRight { _ = index(of: right.replica) }
            }
        default:
            break
        }
    }

    /// The index of a replica already in the table.
    func existingIndex(of replica: ReplicaID) -> Int {
        if let recent = recentReplica, recent.id == replica { return Int(recent.index) }
        return replicas.firstIndex(of: replica) ?? 0
    }

    /// Batches name few replicas, mostly the same one op after op: a scan
    /// behind a one-entry cache beats hashing.
    private mutating func index(of replica: ReplicaID) -> Int32 {
        if let recent = recentReplica, recent.id == replica { return recent.index }
        let index = Int32(replicas.firstIndex(of: replica) ?? replicas.count)
        if index == replicas.count { replicas.append(replica) }
        recentReplica = (replica, index)
        return index
    }
}
