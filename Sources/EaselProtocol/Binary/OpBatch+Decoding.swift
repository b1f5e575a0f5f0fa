import EaselModel

extension BinaryReader {
    /// Reads an op batch of at most `limit` ops, each checked as the model
    /// would check it (`Op.validate`).
    mutating func opBatch(limit: Int) throws(DecodeError) -> [Op] {
        var sink = ReceivedOpsSink(received: ReceivedOps(entities: [], capacity: 0))
        try opBatch(limit: limit, positioned: false, into: &sink)
        return sink.received.ops
    }

    /// Positioned ops (4.4): a batch whose every op is preceded by its
    /// position's difference from the previous op's. Read as a merging
    /// receiver reads them, then made ops: one loop, compiled once.
    mutating func positionedOps(limit: Int) throws(DecodeError) -> [PositionedOp] {
        var sink = ReceivedOpsSink(received: ReceivedOps(entities: [], capacity: 0), positions: [])
        try opBatch(limit: limit, positioned: true, into: &sink)
        let positions = sink.positions ?? []
        return sink.received.map { op, index in PositionedOp(position: positions[index], op: op) }
    }

    /// Positioned ops read as ops alone: the positions are checked and
    /// dropped.
    mutating func positionedOpsWithoutPositions(limit: Int) throws(DecodeError) -> [Op] {
        var sink = ReceivedOpsSink(received: ReceivedOps(entities: [], capacity: 0))
        try opBatch(limit: limit, positioned: true, into: &sink)
        return sink.received.ops
    }

    /// Positioned ops laid out for merging, into a sink's `ReceivedOps`.
    mutating func receivedOps(limit: Int, into sink: inout ReceivedOpsSink) throws(DecodeError) {
        try opBatch(limit: limit, positioned: true, into: &sink)
    }

    /// Hands each op to `sink` as it is read and checked, so no op is
    /// copied from one array into another.
    private mutating func opBatch(
        limit: Int, positioned: Bool, into sink: inout ReceivedOpsSink
    ) throws(DecodeError) {
        let replicaCount = try count(of: "replicas", limit: limit * 2, minimumBytes: 8)
        var replicas: [ReplicaID] = []
        replicas.reserveCapacity(replicaCount)
        for _ in 0..<replicaCount {
            replicas.append(ReplicaID(rawValue: try fixed64("a replica ID")))
        }

        let entityCount = try count(of: "entities", limit: limit, minimumBytes: 2)
        var entities: [EntityID] = []
        entities.reserveCapacity(entityCount)
        for _ in 0..<entityCount {
            let replica = try reference(into: replicas, "an entity's replica index")
            let counter = try varint("an entity's counter")
            // Counter 0 names the document itself, 0@0000000000000000, and nothing else.
            guard counter > 0 || replica == EntityID.document.author else {
                throw DecodeError(
                    .invalidValue, "entity \(entities.count) has counter 0 but is not the document (replica 0)")
            }
            entities.append(EntityID(OpID(counter: counter, replica: replica)))
        }

        let opCount = try count(
            of: "ops", limit: limit, minimumBytes: OpBatch.minimumOpBytes + (positioned ? 1 : 0))
        sink.begin(entities: entities, opCount: opCount)
        var position: UInt64 = 0
        var replica = replicas.first
        var counter: UInt64 = 0
        var transaction: TransactionID?
        for index in 0..<opCount {
            if positioned {
                let delta = try varint("op \(index)'s position difference")
                guard delta > 0 else { throw DecodeError(.invalidValue, "positions must strictly increase") }
                let (next, overflow) = position.addingReportingOverflow(delta)
                guard !overflow else { throw DecodeError(.invalidValue, "a position exceeds 2^64 - 1") }
                position = next
            }
            let header = try byte("an op header")
            guard header & OpBatch.reservedBit == 0 else {
                throw DecodeError(.unknownTag, "op \(index) sets the reserved header bit")
            }
            // Nil for 0: the body's first byte is the tag.
            let headerAction = OpBatch.ActionTag(rawValue: header & OpBatch.actionMask)
            guard
                let mode = OpBatch.TransactionMode(
                    rawValue: (header & OpBatch.transactionMask) >> OpBatch.transactionShift)
            else {
                throw DecodeError(.unknownTag, "op \(index) has transaction mode 3")
            }
            if header & OpBatch.replicaFollows != 0 {
                replica = try reference(into: replicas, "op \(index)'s replica index")
            }
            guard let opReplica = replica else {
                throw DecodeError(.invalidValue, "op \(index) names no replica: the replica table is empty")
            }
            let delta = header & OpBatch.counterFollows != 0 ? try signedVarint("op \(index)'s counter delta") : 1
            counter &+= UInt64(bitPattern: delta)
            guard counter > 0 else { throw DecodeError(.invalidValue, "op \(index) has counter 0") }
            let id = OpID(counter: counter, replica: opReplica)

            let opTransaction: TransactionID
            switch mode {
            case .previous:
                guard let previous = transaction else {
                    throw DecodeError(.invalidValue, "the first op cannot continue a previous op's transaction")
                }
                opTransaction = previous
            case .own:
                opTransaction = TransactionID(id)
            case .explicit:
                let transactionReplica = try reference(into: replicas, "op \(index)'s transaction replica")
                let transactionCounter = try varint("op \(index)'s transaction counter")
                opTransaction = TransactionID(OpID(counter: transactionCounter, replica: transactionReplica))
            }
            transaction = opTransaction

            let action = if let headerAction { headerAction } else { try extendedAction(index) }
            let op: Op
            if action == .set {
                let entry = try entryIndex(into: entities, "op \(index)'s entity index")
                let tag = try byte("a field tag")
                if let fieldID = FieldID.holdingOneNumber(tag: tag) {
                    let value = try float(fieldID.description)
                    // A set of a number, the bulk of what merges: the number
                    // was read finite and the counter is positive; of what
                    // `validate` asks, the entity and the transaction's
                    // bond to the op are left. Anything else goes the
                    // whole way, for its error.
                    let entity = entities[entry]
                    // Counter 0 in the table is the document (checked above).
                    if entity.creation.counter != 0, opTransaction.first.replica == id.replica,
                        opTransaction.first.counter > 0, opTransaction.first.counter <= id.counter,
                        let set = NumberSet(
                            id: id, transaction: opTransaction, entry: Int32(entry), field: fieldID, value: value)
                    {
                        sink.numberSet(set, position: position)
                        continue
                    }
                    op = Op(id: id, transaction: opTransaction, action: .set(entity, fieldID.number(value)))
                } else {
                    op = Op(id: id, transaction: opTransaction, action: .set(entities[entry], try field(tag: tag)))
                }
            } else {
                op = Op(
                    id: id, transaction: opTransaction,
                    action: try actionBody(action, id: id, entities: entities, replicas: replicas, index: index))
            }
            try op.validateForWire(index: index)
            sink.op(op, position: position)
        }
    }

    /// The index of an entry of a batch table; `what` is built only for an
    /// error.
    @inline(__always)
    mutating func entryIndex<T>(into table: [T], _ what: @autoclosure () -> String) throws(DecodeError) -> Int {
        let index = try varint(what())
        guard index < UInt64(table.count) else {
            throw DecodeError(.invalidValue, "\(what()) is \(index); the table has \(table.count) entries")
        }
        return Int(index)
    }

    /// An entry of a batch table; `what` is built only for an error.
    @inline(__always)
    mutating func reference<T>(into table: [T], _ what: @autoclosure () -> String) throws(DecodeError) -> T {
        table[try entryIndex(into: table, what())]
    }

    private mutating func actionBody(
        _ tag: OpBatch.ActionTag, id: OpID, entities: [EntityID], replicas: [ReplicaID], index: Int
    ) throws(DecodeError)
        -> Op.Action
    {
        switch tag {
        case .create:
            let kind = try enumeration(EntityKind.self, "entity kind")
            let fieldCount = try count(
                of: "fields in a create", limit: ProtocolLimits.fieldsPerCreate, limitCode: .invalidValue,
                minimumBytes: 2)
            var fields: [Field] = []
            fields.reserveCapacity(fieldCount)
            var seen: UInt32 = 0
            for _ in 0..<fieldCount {
                let field = try field()
                let bit: UInt32 = 1 << field.id.rawValue
                guard seen & bit == 0 else {
                    throw DecodeError(.invalidValue, "op \(index) creates with \(field.id) twice")
                }
                seen |= bit
                fields.append(field)
            }
            return .create(kind, fields)
        case .set:
            preconditionFailure("a set is read by opBatch itself")
        case .delete:
            return .delete(try reference(into: entities, "op \(index)'s entity index"))
        case .restore:
            return .restore(try reference(into: entities, "op \(index)'s entity index"))
        case .append:
            let entity = try reference(into: entities, "op \(index)'s entity index")
            let start = try varint(UInt32.self, "op \(index)'s sample start")
            return .append(entity, start: start, samples: try samples(index: index))
        case .insertText:
            return try insertText(id: id, entities: entities, replicas: replicas, index: index)
        case .deleteText:
            return try deleteText(entities: entities, replicas: replicas, index: index)
        case .textSnapshot:
            let entity = try reference(into: entities, "op \(index)'s entity index")
            return .textSnapshot(entity, try textSnapshot(replicas: replicas, index: index))
        }
    }

    /// The tag of an action past the header's three bits.
    private mutating func extendedAction(_ index: Int) throws(DecodeError) -> OpBatch.ActionTag {
        let tag = try byte("op \(index)'s action")
        guard tag > OpBatch.actionMask, let action = OpBatch.ActionTag(rawValue: tag) else {
            throw DecodeError(.unknownTag, "op \(index) has unknown action \(tag)")
        }
        return action
    }

    // Character ops are rare beside sets: kept out of line, so the loop that
    // reads every op stays small.
    @inline(never)
    private mutating func insertText(id: OpID, entities: [EntityID], replicas: [ReplicaID], index: Int)
        throws(DecodeError) -> Op.Action
    {
        let entity = try reference(into: entities, "op \(index)'s entity index")
        let flags = try byte("op \(index)'s insert flags")
        guard flags & ~OpBatch.insertFlags == 0 else {
            throw DecodeError(.unknownTag, "op \(index) sets unknown insert flags \(flags)")
        }
        var originLeft: OpID?
        if flags & OpBatch.typesOn != 0 {
            guard flags & OpBatch.hasOriginLeft != 0, id.counter > 1 else {
                throw DecodeError(.invalidValue, "op \(index) types on from no character")
            }
            originLeft = OpID(counter: id.counter - 1, replica: id.replica)
        } else if flags & OpBatch.hasOriginLeft != 0 {
            originLeft = try characterID(replicas: replicas, "op \(index)'s left origin")
        }
        let originRight =
            flags & OpBatch.hasOriginRight != 0
            ? try characterID(replicas: replicas, "op \(index)'s right origin") : nil
        let (utf8, count) = try validUTF8(
            "op \(index)'s characters", limit: ModelLimits.scalarsPerInsert * 4, limitCode: .invalidValue)
        // Copied into the op as the wire has it.
        let insertion = TextInsertion(originLeft: originLeft, originRight: originRight, validUTF8: utf8, count: count)
        return .insertText(entity, insertion)
    }

    @inline(never)
    private mutating func deleteText(entities: [EntityID], replicas: [ReplicaID], index: Int) throws(DecodeError)
        -> Op.Action
    {
        let entity = try reference(into: entities, "op \(index)'s entity index")
        let runCount = try count(
            of: "runs in a delete", limit: ModelLimits.runsPerDelete, limitCode: .invalidValue, minimumBytes: 3)
        var runs: [CharacterRun] = []
        runs.reserveCapacity(runCount)
        for _ in 0..<runCount {
            let first = try characterID(replicas: replicas, "op \(index)'s run")
            let runLength = try varint("op \(index)'s run length")
            guard runLength > 0, runLength <= UInt64(ModelLimits.charactersPerText) else {
                throw DecodeError(.invalidValue, "op \(index) deletes a run of \(runLength) characters")
            }
            runs.append(CharacterRun(first: first, count: Int(runLength)))
        }
        return .deleteText(entity, runs)
    }

    private mutating func characterID(replicas: [ReplicaID], _ what: @autoclosure () -> String) throws(DecodeError)
        -> OpID
    {
        let replica = try reference(into: replicas, "\(what())'s replica index")
        let counter = try varint("\(what())'s counter")
        guard counter > 0 else { throw DecodeError(.invalidValue, "\(what()) has counter 0") }
        return OpID(counter: counter, replica: replica)
    }

    private mutating func samples(index: Int) throws(DecodeError) -> [StrokeSample] {
        let sampleCount = try count(
            of: "samples", limit: ModelLimits.samplesPerAppend, limitCode: .invalidValue, minimumBytes: 12)
        guard sampleCount > 0 else { throw DecodeError(.invalidValue, "op \(index) appends no samples") }
        let mode = try byte("the force mode")
        var forceBits: UnsafeRawBufferPointer?
        switch mode {
        case OpBatch.noForce, OpBatch.everyForce:
            break
        case OpBatch.forceBitmap:
            let bitmap = try bytes(count: (sampleCount + 7) / 8, "the force bitmap")
            let unusedBits = sampleCount % 8 == 0 ? 0 : (0xFF << (sampleCount % 8)) & 0xFF
            if let last = bitmap.last, Int(last) & unusedBits != 0 {
                throw DecodeError(.invalidValue, "op \(index)'s force bitmap sets bits past its last sample")
            }
            forceBits = bitmap
        default:
            throw DecodeError(.unknownTag, "op \(index) has unknown force mode \(mode)")
        }
        var samples: [StrokeSample] = []
        samples.reserveCapacity(sampleCount)
        for sampleIndex in 0..<sampleCount {
            let x = try float("sample x")
            let y = try float("sample y")
            let time = try float("sample time")
            let hasForce =
                if let forceBits { forceBits[sampleIndex / 8] & (1 << (sampleIndex % 8)) != 0 } else {
                    mode == OpBatch.everyForce
                }
            let force = hasForce ? try float("sample force") : nil
            samples.append(StrokeSample(x: x, y: y, time: time, force: force))
        }
        return samples
    }
}

extension Op {
    /// The model's own checks, reported with the protocol's codes.
    func validateForWire(index: Int) throws(DecodeError) {
        do {
            try validate()
        } catch {
            let code: ErrorCode =
                switch error {
                case .nonFiniteNumber: .nonFiniteNumber
                case .stringTooLong: .tooLarge
                default: .invalidValue
                }
            throw DecodeError(code, "op \(index) (\(id)): \(error.description)")
        }
    }
}
