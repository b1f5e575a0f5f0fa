import EaselModel
import EaselProtocol

extension Room {
    /// Relays a connection's presence to the others, at most one message per
    /// `presenceInterval`: a message inside the interval is held, replacing
    /// any held before it, and relayed when the interval ends.
    func relay(_ presence: Presence, from connection: ConnectionID, at now: Timestamp, into io: inout RoomIO) {
        guard var member = members[connection] else { return }
        var presence = presence
        // A client speaks only for itself.
        presence.replica = member.replica
        presence.user = member.user
        member.presence = presence
        if let last = member.presenceRelayedAt, now.milliseconds(since: last) < configuration.presenceInterval {
            member.presenceHeld = true
            members[connection] = member
            return
        }
        member.presenceRelayedAt = now
        member.presenceHeld = false
        members[connection] = member
        broadcast(presence, except: connection, into: &io)
    }

    /// Relays held presence whose interval has passed, and closes joined
    /// connections that have been silent too long (their peers get a leave,
    /// so no ghost cursor stays behind).
    func tick(at now: Timestamp, into io: inout RoomIO) {
        for connection in memberOrder {
            guard let member = members[connection] else { continue }
            if now.milliseconds(since: member.lastHeard) >= configuration.silenceTimeout {
                io.close(connection, .silent)
                leave(connection, into: &io)
                continue
            }
            if member.presenceHeld, let presence = member.presence, let last = member.presenceRelayedAt,
                now.milliseconds(since: last) >= configuration.presenceInterval
            {
                members[connection]?.presenceHeld = false
                members[connection]?.presenceRelayedAt = now
                broadcast(presence, except: connection, into: &io)
            }
        }
    }

    /// Sends a presence to everyone else, as each one's protocol version
    /// has it: one message for those who know presence `state`, one for the rest.
    private func broadcast(_ presence: Presence, except sender: ConnectionID, into io: inout RoomIO) {
        var current: [ConnectionID] = []
        var older: [ConnectionID] = []
        for connection in memberOrder where connection != sender {
            if let member = members[connection], member.protocolVersion < WireProtocol.presenceStateVersion {
                older.append(connection)
            } else {
                current.append(connection)
            }
        }
        if !current.isEmpty { io.outputs.append(.send(.presence(presence), to: current)) }
        if !older.isEmpty { io.outputs.append(.send(.presence(presence.spoken(in: 1)), to: older)) }
    }
}
