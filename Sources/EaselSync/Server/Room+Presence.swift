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
    /// has it: one message for each distinct form (the fields a version does
    /// not know are left out), so the common case is still one message.
    private func broadcast(_ presence: Presence, except sender: ConnectionID, into io: inout RoomIO) {
        var forms: [(presence: Presence, connections: [ConnectionID])] = []
        for connection in memberOrder where connection != sender {
            guard let member = members[connection] else { continue }
            let spoken = presence.spoken(in: member.protocolVersion)
            if let index = forms.firstIndex(where: { $0.presence == spoken }) {
                forms[index].connections.append(connection)
            } else {
                forms.append((spoken, [connection]))
            }
        }
        for form in forms { io.outputs.append(.send(.presence(form.presence), to: form.connections)) }
    }
}
