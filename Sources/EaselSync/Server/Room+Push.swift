import EaselModel
import EaselProtocol

extension Room {
    /// Why a push was refused: the error code and a message for people.
    struct Refusal: Error {
        var code: ErrorCode
        var message: String
    }

    func push(_ push: Push, from connection: ConnectionID, at now: Timestamp, into io: inout RoomIO) {
        guard let member = members[connection] else { return }
        guard member.role == .edit else {
            return io.refuse(
                connection, code: .readOnly, batch: push.batch, "this connection may view \(name), not edit it")
        }
        guard push.ops.count <= configuration.limits.opsPerPush else {
            return io.refuse(
                connection, code: .tooLarge, batch: push.batch,
                "a push has at most \(configuration.limits.opsPerPush) ops on this server; this one has \(push.ops.count)"
            )
        }
        guard pendingOps.count + push.ops.count <= configuration.limits.pendingOpsPerRoom else {
            return io.refuse(
                connection, code: .rateLimited, batch: push.batch,
                "\(name) has \(pendingOps.count) ops waiting for storage: send it again later")
        }
        let counted = contentBeforeVetting(push.ops, from: member.replica)
        if let counted, let full = fullRefusal(counted) {
            return io.refuse(connection, code: full.code, batch: push.batch, full.message)
        }
        let freshOps: [Op]
        do throws(Refusal) {
            freshOps = try vet(push.ops, from: member.replica)
        } catch {
            return io.refuse(connection, code: error.code, batch: push.batch, error.message)
        }
        // Counted before vetting, the content is already what the fresh
        // ops make it, and already within the limits.
        var grown = counted ?? content
        if counted == nil {
            for op in freshOps { grown.add(op) }
            if let full = fullRefusal(grown) {
                return io.refuse(connection, code: full.code, batch: push.batch, full.message)
            }
        }
        content = grown
        let first = head + UInt64(pendingOps.count) + 1
        for (offset, op) in freshOps.enumerated() {
            let position = first + UInt64(offset)
            accept(op, at: position)
            unstored.ops.append(LoggedOp(position: position, op: op, author: member.author, receivedAt: now.rawValue))
        }
        let ticket = freshOps.isEmpty ? nil : unstoredTicket()
        pendingPushes.append(
            PendingPush(
                connection: connection, batch: push.batch, ticket: ticket, opCount: freshOps.count,
                isStored: ticket == nil || configuration.faults.acknowledgeBeforeCommit))
        commitStoredPushes()
    }

    /// What the document would hold with the push's ops, counted before
    /// they are vetted; nil when that cannot be known so cheaply.
    ///
    /// An editor filling a document past its limit sends push after push
    /// of creates, each refused; vetting 1,000 ops costs the service thread
    /// milliseconds, and counting them a lookup each. The count is exact
    /// for a push whose counters rise, as every honest push's do: no op
    /// repeats within it, so an op is fresh exactly when `isResend` would
    /// not know it. Refusing on it makes 213 the answer to a push that both
    /// breaks a rule `vet` checks and passes the limit.
    private func contentBeforeVetting(_ ops: [Op], from replica: ReplicaID) -> DocumentContent? {
        let retainedFrom = highWaterBelowRetained[replica] ?? 0
        var grown = content
        var previousCounter: UInt64 = 0
        for op in ops {
            guard op.id.replica == replica, op.id.counter > previousCounter else { return nil }
            previousCounter = op.id.counter
            if op.id.counter > retainedFrom, positions[op.id] == nil { grown.add(op) }
        }
        return grown
    }

    /// Why a document grown to `grown` is past a limit this server keeps;
    /// nil when it is within them or the push adds nothing they count.
    private func fullRefusal(_ grown: DocumentContent) -> Refusal? {
        let limits = configuration.limits
        if grown.entities > limits.entitiesPerDocument, grown.entities != content.entities {
            return Refusal(
                code: .documentFull,
                message:
                    "\(name) holds \(content.entities) entities; this server keeps at most \(limits.entitiesPerDocument) in one document"
            )
        }
        if grown.bytes > limits.contentBytesPerDocument, grown.bytes != content.bytes {
            return Refusal(
                code: .documentFull,
                message:
                    "\(name) holds \(content.bytes) bytes of content; this push would take it past the \(limits.contentBytesPerDocument) this server keeps in one document"
            )
        }
        return nil
    }

    /// The push's ops that are not resends, or why the push is refused.
    ///
    /// Every op is checked against committed and pending state and the
    /// push's own earlier ops, and nothing changes until all have passed,
    /// so a refused push leaves no trace.
    private func vet(_ ops: [Op], from replica: ReplicaID) throws(Refusal) -> [Op] {
        var kindsInPush: [EntityID: EntityKind] = [:]
        var chunksInPush: [EntityID: [SampleChunk]] = [:]
        var charactersInPush: [EntityID: [PendingCharacters]] = [:]
        // Counters only rise within an honest push, so a repeat within it is
        // looked for only once they stop rising.
        var previousCounter: UInt64 = 0
        var earlierInPush: [OpID: Op]?
        var resends: [Int] = []
        let counterBound = highestCounter.addingReportingOverflow(configuration.counterLead)
        for (index, op) in ops.enumerated() {
            guard op.id.replica == replica else {
                throw Refusal(
                    code: .wrongReplica, message: "op \(op.id) is stamped with another replica than \(replica)")
            }
            if op.id.counter <= previousCounter, earlierInPush == nil {
                var earlier: [OpID: Op] = [:]
                for previous in ops[..<index] where earlier[previous.id] == nil { earlier[previous.id] = previous }
                earlierInPush = earlier
            }
            previousCounter = max(previousCounter, op.id.counter)
            if let earlier = earlierInPush?[op.id] {
                guard earlier == op else { throw conflict(op.id) }
                resends.append(index)
                continue
            }
            earlierInPush?[op.id] = op
            if try isResend(op) {
                resends.append(index)
                continue
            }
            guard counterBound.overflow || op.id.counter <= counterBound.partialValue else {
                throw Refusal(
                    code: .counterTooFar,
                    message:
                        "counter \(op.id.counter) is more than \(configuration.counterLead) beyond the document's \(highestCounter)"
                )
            }
            try vetMeaning(
                op, kindsInPush: &kindsInPush, chunksInPush: &chunksInPush, charactersInPush: &charactersInPush)
        }
        guard !resends.isEmpty else { return ops }
        var fresh: [Op] = []
        fresh.reserveCapacity(ops.count - resends.count)
        var resendsPassed = 0
        for (index, op) in ops.enumerated() {
            if resendsPassed < resends.count, resends[resendsPassed] == index {
                resendsPassed += 1
            } else {
                fresh.append(op)
            }
        }
        return fresh
    }

    /// Whether the op was already accepted: the same op is a resend, another
    /// op with its ID a conflict.
    private func isResend(_ op: Op) throws(Refusal) -> Bool {
        if let position = positions[op.id] {
            guard self.op(at: position) == op else { throw conflict(op.id) }
            return true
        }
        return op.id.counter <= highWaterBelowRetained[op.id.replica] ?? 0
    }

    private func conflict(_ id: OpID) -> Refusal {
        Refusal(code: .opConflict, message: "op \(id) was already accepted with different content")
    }

    /// What the op means in the document: an entity it has, a field of the
    /// entity's kind, an append by the stroke's author that does not
    /// contradict samples already accepted.
    private func vetMeaning(
        _ op: Op, kindsInPush: inout [EntityID: EntityKind], chunksInPush: inout [EntityID: [SampleChunk]],
        charactersInPush: inout [EntityID: [PendingCharacters]]
    ) throws(Refusal) {
        if case .create(let kind, _) = op.action {
            kindsInPush[op.entity] = kind
            if let text = PendingCharacters(op) { charactersInPush[op.entity, default: []].append(text) }
            return
        }
        let entity = op.entity
        // Every document has itself; the decoder let through only sets of
        // its own fields.
        if entity == .document { return }
        guard let kind = kindsInPush[entity] ?? pendingKinds[entity] ?? committed.kind(of: entity) else {
            throw Refusal(code: .unknownEntity, message: "the document has no entity \(entity)")
        }
        switch op.action {
        case .set(_, let field):
            guard kind.has(field.id) else {
                throw Refusal(code: .fieldNotInKind, message: "a \(kind) has no field \(field.id)")
            }
            if field.id == .text {
                guard !hasCharacterEdits(entity, inPush: charactersInPush) else {
                    throw Refusal(
                        code: .textMergesCharacters,
                        message: "\(entity)'s characters merge: edit them with insertText and deleteText (version 4)")
                }
                if let text = PendingCharacters(op) { charactersInPush[entity, default: []].append(text) }
            }
        case .insertText, .deleteText:
            try vetText(op, of: entity, kind: kind, charactersInPush: &charactersInPush)
        case .textSnapshot:
            throw Refusal(
                code: .invalidValue,
                message: "a text's snapshot is never pushed: type with insertText and deleteText")
        case .append(_, let start, let samples):
            guard kind == .stroke else {
                throw Refusal(code: .fieldNotInKind, message: "a \(kind) has no samples to append to")
            }
            guard op.id.replica == entity.author else {
                throw Refusal(code: .notStrokeAuthor, message: "only the author of stroke \(entity) may append to it")
            }
            // Conflicts are per sample index: a chunk may repeat, overlap
            // or extend what was accepted, but not contradict it anywhere.
            let chunk = SampleChunk(start: start, samples: samples)
            if let index = committed.firstSampleDisagreement(of: entity, with: chunk)
                ?? Self.firstDisagreement(among: pendingChunks[entity], with: chunk)
                ?? Self.firstDisagreement(among: chunksInPush[entity], with: chunk)
            {
                throw Refusal(
                    code: .appendConflict,
                    message: "stroke \(entity) already has another sample at index \(index)")
            }
            chunksInPush[entity, default: []].append(chunk)
        case .create, .delete, .restore:
            break
        }
    }

    private static func firstDisagreement(among chunks: [SampleChunk]?, with chunk: SampleChunk) -> UInt32? {
        for earlier in chunks ?? [] {
            if let index = earlier.firstDisagreement(with: chunk) { return index }
        }
        return nil
    }

    /// Records an accepted op as pending at its position.
    private func accept(_ op: Op, at position: UInt64) {
        positions[op.id] = position
        let replica = op.id.replica
        highWater[replica] = max(highWater[replica] ?? 0, op.lastCounter)
        highestCounter = max(highestCounter, op.lastCounter)
        pendingOps.append(PositionedOp(position: position, op: op))
        switch op.action {
        case .create(let kind, _): pendingKinds[op.entity] = kind
        case .append(let entity, let start, let samples):
            pendingChunks[entity, default: []].append(SampleChunk(start: start, samples: samples))
        default: break
        }
        if let text = PendingCharacters(op) { pendingCharacters[op.entity, default: []].append(text) }
    }

    // MARK: Storage completions

    /// The ticket of the append the ops accepted since the last flush go
    /// in, issued with the first of them.
    private func unstoredTicket() -> StorageTicket {
        if let ticket = unstored.ticket { return ticket }
        let issued = StorageTicket(room: generation, sequence: nextTicket)
        nextTicket += 1
        unstored.ticket = issued
        return issued
    }

    /// Hands storage what was accepted since the last flush, as one append:
    /// every push of a turn shares its handoff, commit answer and wake-up
    /// (at one op a push, a handoff and an answer each cost about as much
    /// as vetting and accepting the push).
    func flushUnstored(into io: inout RoomIO) {
        guard let ticket = unstored.ticket else { return }
        io.outputs.append(.append(unstored.ops, to: name, ticket: ticket))
        unstored = UnstoredOps()
    }

    /// Storage answered for one of this room's appends: every push whose
    /// ops it carried is stored.
    func stored(_ ticket: StorageTicket, _ result: Result<Void, StorageFailure>, into io: inout RoomIO) {
        guard let first = pendingPushes.firstOffset(where: { $0.ticket == ticket }) else { return }
        switch result {
        case .failure(let failure):
            fail(failure, into: &io)
        case .success:
            // An append's pushes are consecutive, save resends (no ticket,
            // stored already) among them; tickets rise with the queue.
            var index = first
            while index < pendingPushes.count, (pendingPushes[index].ticket?.sequence ?? 0) <= ticket.sequence {
                pendingPushes[index].isStored = true
                index += 1
            }
            commitStoredPushes()
        }
    }

    /// Commits the pushes at the front of the queue whose ops are durable,
    /// in order: a push is acknowledged only once everything before it is.
    private func commitStoredPushes() {
        var committedPushes = 0
        var committedOps = 0
        for push in pendingPushes.elements(from: 0) {
            guard push.isStored else { break }
            committedPushes += 1
            let first = head + 1
            for offset in committedOps..<committedOps + push.opCount {
                let op = pendingOps[offset]
                commitHead(op)
                if case .create = op.op.action { pendingKinds[op.op.entity] = nil }
                if case .append(let entity, _, _) = op.op.action {
                    // Pending chunks commit in the order they were accepted.
                    pendingChunks[entity]?.removeFirst()
                    if pendingChunks[entity]?.isEmpty == true { pendingChunks[entity] = nil }
                }
                if PendingCharacters(op.op) != nil { committedCharacters(of: op.op.entity) }
            }
            committedOps += push.opCount
            undeliveredAcks.append(
                (push.connection, Ack(batch: push.batch, first: first, count: UInt32(push.opCount))))
        }
        guard committedPushes > 0 else { return }
        pendingPushes.removeFirst(committedPushes)
        pendingOps.removeFirst(committedOps)
        trimRetained()
    }
}
