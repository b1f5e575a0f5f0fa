import EaselModel
import EaselProtocol

extension Room {
    var hasUndelivered: Bool { !undelivered.isEmpty || !undeliveredAcks.isEmpty }

    /// Whether the end of the turn has something for this room to do:
    /// ops to hand to storage, or commits to deliver.
    var needsFlush: Bool { hasUnstored || hasUndelivered }

    var hasUnstored: Bool { unstored.ticket != nil }

    /// Sends what was committed since the last flush: each connection gets
    /// its acks and everyone else's ops in position order, coalesced into as
    /// few messages as that order allows. Connections that need exactly the
    /// same ops share one message, which the host encodes once; one that
    /// speaks a version older than the ops' fields gets them as it speaks them.
    func flush(into io: inout RoomIO) {
        guard hasUndelivered else { return }
        defer {
            undelivered.removeAll(keepingCapacity: true)
            undeliveredAcks.removeAll(keepingCapacity: true)
        }
        let through = undelivered.last?.position ?? 0
        let firstPosition = undelivered.first?.position ?? .max
        var authors: Set<ReplicaID> = []
        for op in undelivered { authors.insert(op.op.id.replica) }
        var acks: [ConnectionID: [Ack]] = [:]
        for (connection, ack) in undeliveredAcks { acks[connection, default: []].append(ack) }

        var sharing: [ConnectionID] = []
        var sharingOlder: [UInt32: [ConnectionID]] = [:]
        for connection in memberOrder {
            guard let member = members[connection] else { continue }
            let ownAcks = acks[connection] ?? []
            if ownAcks.isEmpty, !authors.contains(member.replica), member.sentThrough < firstPosition {
                if member.protocolVersion >= WireProtocol.version {
                    sharing.append(connection)
                } else {
                    sharingOlder[Self.spokenGroup(member.protocolVersion), default: []].append(connection)
                }
            } else {
                deliverIndividually(to: connection, member, acks: ownAcks, into: &io)
            }
            members[connection]?.sentThrough = max(member.sentThrough, through)
        }
        if !sharing.isEmpty, !undelivered.isEmpty {
            io.outputs.append(.send(.ops(undelivered), to: sharing))
        }
        for (version, connections) in sharingOlder.sorted(by: { $0.key < $1.key }) {
            let older = undelivered.spoken(in: version, texts: committed)
            if !older.isEmpty { io.outputs.append(.send(.ops(older), to: connections)) }
        }
    }

    /// Versions that lack the same things share one message: 1 and 2 (no
    /// erasures, no character ops), and 3 (no character ops).
    private static func spokenGroup(_ version: UInt32) -> UInt32 {
        version < WireProtocol.erasuresVersion ? WireProtocol.erasuresVersion - 1 : version
    }

    /// The ops a connection lacks and its acks, interleaved by position.
    private func deliverIndividually(
        to connection: ConnectionID, _ member: Member, acks ownAcks: [Ack], into io: inout RoomIO
    ) {
        var acks = ownAcks.makeIterator()
        var nextAck = acks.next()
        var batch: [PositionedOp] = []
        let spoken = undelivered.spoken(in: member.protocolVersion, texts: committed)
        for op in spoken where op.position > member.sentThrough {
            while let ack = nextAck, ack.first <= op.position {
                if !batch.isEmpty { io.send(.ops(batch), to: connection) }
                batch = []
                io.send(.ack(ack), to: connection)
                nextAck = acks.next()
            }
            guard op.op.id.replica != member.replica else { continue }
            batch.append(op)
        }
        if !batch.isEmpty { io.send(.ops(batch), to: connection) }
        while let ack = nextAck {
            io.send(.ack(ack), to: connection)
            nextAck = acks.next()
        }
    }
}
