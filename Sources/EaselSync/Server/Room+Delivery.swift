import EaselModel
import EaselProtocol

extension Room {
    var hasUndelivered: Bool { !undelivered.isEmpty || !undeliveredAcks.isEmpty }

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
        var sharingOlder: [ConnectionID] = []
        for connection in memberOrder {
            guard let member = members[connection] else { continue }
            let ownAcks = acks[connection] ?? []
            if ownAcks.isEmpty, !authors.contains(member.replica), member.sentThrough < firstPosition {
                if member.protocolVersion >= WireProtocol.erasuresVersion {
                    sharing.append(connection)
                } else {
                    sharingOlder.append(connection)
                }
            } else {
                deliverIndividually(to: connection, member, acks: ownAcks, into: &io)
            }
            members[connection]?.sentThrough = max(member.sentThrough, through)
        }
        if !sharing.isEmpty, !undelivered.isEmpty {
            io.outputs.append(.send(.ops(undelivered), to: sharing))
        }
        // Versions 1 and 2 lack the same fields: one message serves both.
        let older = sharingOlder.isEmpty ? [] : undelivered.spoken(in: WireProtocol.erasuresVersion - 1)
        if !older.isEmpty {
            io.outputs.append(.send(.ops(older), to: sharingOlder))
        }
    }

    /// The ops a connection lacks and its acks, interleaved by position.
    private func deliverIndividually(
        to connection: ConnectionID, _ member: Member, acks ownAcks: [Ack], into io: inout RoomIO
    ) {
        var acks = ownAcks.makeIterator()
        var nextAck = acks.next()
        var batch: [PositionedOp] = []
        for op in undelivered where op.position > member.sentThrough {
            while let ack = nextAck, ack.first <= op.position {
                if !batch.isEmpty { io.send(.ops(batch), to: connection) }
                batch = []
                io.send(.ack(ack), to: connection)
                nextAck = acks.next()
            }
            guard op.op.id.replica != member.replica else { continue }
            if let spoken = op.op.spoken(in: member.protocolVersion) {
                batch.append(PositionedOp(position: op.position, op: spoken))
            }
        }
        if !batch.isEmpty { io.send(.ops(batch), to: connection) }
        while let ack = nextAck {
            io.send(.ack(ack), to: connection)
            nextAck = acks.next()
        }
    }
}
