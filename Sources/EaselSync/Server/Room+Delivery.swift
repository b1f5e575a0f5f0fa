import EaselModel
import EaselProtocol

extension Room {
    var hasUndelivered: Bool { !undelivered.isEmpty || !undeliveredAcks.isEmpty }

    /// Sends what was committed since the last flush: each connection gets
    /// its acks and everyone else's ops in position order, coalesced into as
    /// few messages as that order allows. Connections that need exactly the
    /// same ops share one message, which the host encodes once.
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
        for connection in memberOrder {
            guard let member = members[connection] else { continue }
            let ownAcks = acks[connection] ?? []
            if ownAcks.isEmpty, !authors.contains(member.replica), member.sentThrough < firstPosition {
                sharing.append(connection)
            } else {
                deliverIndividually(to: connection, member, acks: ownAcks, into: &io)
            }
            members[connection]?.sentThrough = max(member.sentThrough, through)
        }
        if !sharing.isEmpty, !undelivered.isEmpty {
            io.outputs.append(.send(.ops(undelivered), to: sharing))
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
            if op.op.id.replica != member.replica { batch.append(op) }
        }
        if !batch.isEmpty { io.send(.ops(batch), to: connection) }
        while let ack = nextAck {
            io.send(.ack(ack), to: connection)
            nextAck = acks.next()
        }
    }
}
