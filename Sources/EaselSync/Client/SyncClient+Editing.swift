import EaselModel
import EaselProtocol

extension SyncClient {
    /// A gesture from the screen (or a bot): applied at once, its ops queued
    /// for the server.
    public mutating func send(_ event: GestureEvent, at now: Timestamp) throws(ModelError) {
        let ops = try editor.send(event)
        queue(ops)
        interacted(at: now)
    }

    /// A command from a button, a menu or a bot: applied at once, its ops
    /// queued for the server.
    public mutating func perform(_ command: Command, at now: Timestamp) throws(ModelError) {
        let ops = try editor.perform(command)
        queue(ops)
        interacted(at: now)
    }

    /// The pointer moved (in screen units), or left the canvas (nil).
    public mutating func pointerMoved(to point: Point?, at now: Timestamp) {
        cursor = point.map { editor.state.displayedViewport.documentPoint(fromScreen: $0) }
        interacted(at: now)
    }

    /// The caret (and text selection, `anchor` to `head`) moved inside a
    /// text: peers see it with the next presence.
    public mutating func placeCaret(in text: EntityID, anchor: Int, head: Int, at now: Timestamp) throws(ModelError) {
        try editor.placeCaret(in: text, anchor: anchor, head: head)
        interacted(at: now)
    }

    /// Typing into a text ended.
    public mutating func removeCaret(at now: Timestamp) {
        editor.removeCaret()
        interacted(at: now)
    }

    /// A transaction's ops join the outbox. A key typed (or a character
    /// deleted) on from the last unsent one joins that op (`Op.join`), so
    /// what waits to be sent — typing offline, or faster than pushes go —
    /// travels as runs; each op here is alone in its transaction.
    private mutating func queue(_ ops: [Op]) {
        // Behind an op that waits for a blob, every later op waits too, in
        // the order it was made (SyncClient+Blobs.swift).
        if !heldOps.isEmpty {
            heldOps += ops
            return
        }
        if ops.count == 1, let last = unsent.last,
            unsent.count < 2 || unsent[unsent.count - 2].transaction != last.transaction,
            last.transaction == TransactionID(last.id), ops[0].transaction == TransactionID(ops[0].id),
            unsent[unsent.count - 1].join(ops[0])
        {
            return
        }
        unsent += ops
    }

    private mutating func interacted(at now: Timestamp) {
        lastInteraction = now
        latestTime = max(latestTime, now)
        sharePresence(at: now)
    }

    /// Sends again, as they were, the pushes an earlier connection left
    /// unacknowledged; then cuts the unsent ops into pushes within the
    /// op and byte limits in this connection's encoding. Called
    /// as outputs are taken, so the ops of one loop turn travel together.
    mutating func formPushes() {
        guard isConnected, isWelcomed else { return }
        for ops in awaitingResend { send(Push(batch: nextBatch, ops: ops)) }
        awaitingResend = []
        holdOpsAwaitingBlobs()
        var start = 0
        while start < unsent.count {
            var end = min(start + configuration.opsPerPush, unsent.count)
            while end - start > 1, !fitsInOneMessage(unsent[start..<end]) {
                end = start + (end - start) / 2
            }
            send(Push(batch: nextBatch, ops: Array(unsent[start..<end])))
            start = end
        }
        unsent = []
    }

    private mutating func send(_ push: Push) {
        nextBatch += 1
        inFlight.append(OutgoingPush(batch: push.batch, ops: push.ops, sentAt: latestTime))
        outputs.append(.send(.push(push)))
    }

    /// Whether a push of these ops stays within the message limit: by a
    /// cheap bound on their size first, by encoding them only when the
    /// bound says they might not.
    private func fitsInOneMessage(_ ops: ArraySlice<Op>) -> Bool {
        var bound = 64
        for op in ops { bound += op.wireSizeBound }
        if bound <= configuration.messageBytes { return true }
        let push = Message.push(Push(batch: nextBatch, ops: Array(ops)))
        return push.encoded(as: configuration.encoding).count <= configuration.messageBytes
    }
}

extension Op {
    /// More bytes than the op takes in either encoding: JSON keys and
    /// numbers, and strings at six bytes a byte (every byte escaped).
    var wireSizeBound: Int {
        switch action {
        case .create(_, let fields): 160 + fields.reduce(0) { $0 + $1.wireSizeBound }
        case .set(_, let field): 160 + field.wireSizeBound
        case .delete, .restore: 160
        case .append(_, _, let samples): 160 + samples.count * 96
        case .insertText(_, let insertion): 240 + insertion.scalars.count * 24
        case .deleteText(_, let runs): 160 + runs.count * 80
        case .textSnapshot(_, let snapshot): 240 + snapshot.runs.count * 240 + snapshot.scalars.count * 24
        }
    }
}

extension Field {
    fileprivate var wireSizeBound: Int {
        switch self {
        case .character(let string), .text(let string), .font(let string): 48 + 6 * string.utf8.count
        case .zKey(let key): 48 + 6 * key.string.utf8.count
        // An entity ID and four numbers in JSON: about 130 bytes at most.
        case .erases(let erased): 48 + 160 * erased.count
        default: 96
        }
    }
}
