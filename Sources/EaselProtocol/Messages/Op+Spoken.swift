import EaselModel

// What a peer speaking an older version may be sent of ops it cannot read:
// below version 3 an eraser's `erases` field is left out, so such a peer
// reads every eraser as one drawn before erasures were recorded (masking
// all beneath it); below version 4 a text's character ops become one
// write of the whole string as it now reads, stamped with the latest op
// that changed it, so such a peer reads texts as strings (Docs/text.md).

extension Op {
    /// This op without the fields `version` lacks; nil when nothing of it
    /// is left. Character ops need the document: `[Op].spoken(in:texts:)`.
    func withoutLaterFields(in version: UInt32) -> Op? {
        guard version < WireProtocol.erasuresVersion else { return self }
        switch action {
        case .set(_, .erases):
            return nil
        case .create(let kind, let fields) where fields.contains(where: { $0.id == .erases }):
            return Op(id: id, transaction: transaction, action: .create(kind, fields.filter { $0.id != .erases }))
        default:
            return self
        }
    }

    var isTextEdit: Bool {
        switch action {
        case .insertText, .deleteText, .textSnapshot: true
        default: false
        }
    }
}

extension Document {
    /// A text's whole string as a write a peer below version 4 reads.
    func textWrite(of entity: EntityID) -> Op? {
        guard let string = textString(of: entity), let stamp = textStamp(of: entity), stamp != .unwritten else {
            return nil
        }
        return Op(id: stamp, transaction: TransactionID(stamp), action: .set(entity, .text(string)))
    }
}

extension Array where Element == Op {
    /// The ops as a peer speaking `version` may be sent them; `texts` is
    /// the document they are part of, whose texts read as strings below
    /// version 4 (one write a text, where its last character op was).
    public func spoken(in version: UInt32, texts: Document) -> [Op] {
        guard version < WireProtocol.version else { return self }
        let lastEdits = lastTextEdits(in: version)
        // Sized once: a welcome of 20,000 entities is converted on the
        // service thread for the first joiner speaking an older version.
        var spoken: [Op] = []
        spoken.reserveCapacity(count)
        for (index, op) in enumerated() {
            if let op = texts.spoken(op, at: index, lastEdits: lastEdits, in: version) { spoken.append(op) }
        }
        return spoken
    }
}

extension Array where Element == PositionedOp {
    /// The ops as a peer speaking `version` may be sent them, positions
    /// kept (a left-out op leaves a gap, which positions allow).
    public func spoken(in version: UInt32, texts: Document) -> [PositionedOp] {
        guard version < WireProtocol.version else { return self }
        let lastEdits = lazy.map { $0.op }.lastTextEdits(in: version)
        return enumerated().compactMap { index, positioned in
            texts.spoken(positioned.op, at: index, lastEdits: lastEdits, in: version).map {
                PositionedOp(position: positioned.position, op: $0)
            }
        }
    }
}

extension Sequence where Element == Op {
    /// Where each text's last character op is, for a peer below version 4
    /// (none above it: it reads them all).
    fileprivate func lastTextEdits(in version: UInt32) -> [EntityID: Int] {
        guard version < WireProtocol.textVersion else { return [:] }
        var last: [EntityID: Int] = [:]
        for (index, op) in enumerated() where op.isTextEdit { last[op.entity] = index }
        return last
    }
}

extension Document {
    /// What a peer speaking `version` is sent in place of the op at
    /// `index` of a list: the op without later fields, or, for a text's
    /// last character op in the list, the text's whole string; nil for
    /// nothing.
    fileprivate func spoken(_ op: Op, at index: Int, lastEdits: [EntityID: Int], in version: UInt32) -> Op? {
        guard op.isTextEdit else { return op.withoutLaterFields(in: version) }
        return lastEdits[op.entity] == index ? textWrite(of: op.entity) : nil
    }
}

extension Welcome.Content {
    /// The content as a peer speaking `version` may be sent it.
    public func spoken(in version: UInt32, texts: Document) -> Welcome.Content {
        switch self {
        case .snapshot(let ops): .snapshot(ops.spoken(in: version, texts: texts))
        case .tail(let ops): .tail(ops.spoken(in: version, texts: texts))
        }
    }
}
