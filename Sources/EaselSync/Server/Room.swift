import EaselModel
import EaselProtocol

/// One document's collaboration, as a state machine: it takes messages
/// from connections, storage completions and the time, and says what to
/// send, close and store. It never touches a socket, a thread or a clock.
///
/// Committed and pending state are kept apart. Pushes are vetted against
/// both (so a set may follow a create still being written), but only what
/// storage reported durable is acknowledged, broadcast, or put in a
/// welcome.
final class Room {
    let name: DocumentName
    let configuration: ServerConfiguration
    /// Distinguishes this room's storage tickets from those of every other
    /// room the server ever held, including an earlier room of this name.
    let generation: UInt64

    private(set) var isLoaded = false
    /// What arrived while the history loads, replayed in order once it has.
    private var waiting: [(connection: ConnectionID, message: Message, time: Timestamp)] = []

    // MARK: Committed state

    private(set) var epoch = Epoch(rawValue: 0)
    var committed = Document()
    private(set) var head: UInt64 = 0
    /// The latest committed ops, after `retainedBase`: resumes within them
    /// get a tail, and resends of them are recognised op by op.
    var retained: [PositionedOp] = []
    var retainedBase: UInt64 = 0
    /// Per replica, the highest counter among ops at or below
    /// `retainedBase`: a resend at or below it is a duplicate.
    var highWaterBelowRetained: [ReplicaID: UInt64] = [:]
    private var snapshotCache: (head: UInt64, ops: [Op])?

    // MARK: Committed and pending together

    /// The position of every retained or pending op.
    var positions: [OpID: UInt64] = [:]
    var highWater: [ReplicaID: UInt64] = [:]
    var highestCounter: UInt64 = 0

    // MARK: Pending

    var pendingPushes: [PendingPush] = []
    /// Accepted ops waiting for storage, at positions `head + 1 ...`.
    var pendingOps: [PositionedOp] = []
    var pendingKinds: [EntityID: EntityKind] = [:]
    var pendingChunks: [ChunkKey: OpID] = [:]
    var nextTicket: UInt64 = 1

    // MARK: Connections

    var members: [ConnectionID: Member] = [:]
    var connectionOfReplica: [ReplicaID: ConnectionID] = [:]

    // MARK: Delivery, once per loop turn

    /// Ops committed since the last flush, in position order.
    var undelivered: [PositionedOp] = []
    var undeliveredAcks: [(connection: ConnectionID, ack: Ack)] = []

    init(name: DocumentName, generation: UInt64, configuration: ServerConfiguration) {
        self.name = name
        self.generation = generation
        self.configuration = configuration
    }

    var isIdle: Bool { isLoaded && members.isEmpty && waiting.isEmpty && pendingPushes.isEmpty }

    /// The op at a retained or pending position.
    func op(at position: UInt64) -> Op? {
        if position > head {
            let index = Int(position - head - 1)
            return index < pendingOps.count ? pendingOps[index].op : nil
        }
        guard position > retainedBase else { return nil }
        return retained[Int(position - retainedBase - 1)].op
    }

    // MARK: Loading

    func loaded(_ history: CommittedHistory, into io: inout RoomIO) {
        epoch = history.epoch
        committed = history.document()
        head = history.head
        retainedBase = history.snapshot?.position ?? 0
        highWaterBelowRetained = history.snapshot?.highWater ?? [:]
        retained = history.tail.map { PositionedOp(position: $0.position, op: $0.op) }
        highWater = history.highWater
        highestCounter = max(committed.highestCounter, highWater.values.max() ?? 0)
        for op in retained { positions[op.op.id] = op.position }
        trimRetained()
        isLoaded = true
        let replay = waiting
        waiting = []
        for (connection, message, time) in replay {
            receive(message, from: connection, at: time, into: &io)
        }
    }

    /// Closes every connection, as a room whose storage failed must: it
    /// cannot tell what it holds any more.
    func fail(_ reason: String, into io: inout RoomIO) {
        let everyone = Set(members.keys).union(waiting.map(\.connection))
        for connection in everyone.sorted() {
            io.fail(connection, code: .storageFailed, close: .storageFailed, "\(name): storage failed: \(reason)")
        }
        members = [:]
        waiting = []
        io.roomFailed = true
    }

    // MARK: Messages

    func receive(_ message: Message, from connection: ConnectionID, at now: Timestamp, into io: inout RoomIO) {
        guard isLoaded else {
            waiting.append((connection, message, now))
            return
        }
        if case .hello(let hello) = message {
            return join(connection, hello, at: now, into: &io)
        }
        guard members[connection] != nil else { return }
        members[connection]?.lastHeard = now
        switch message {
        case .hello:
            break
        case .push(let push):
            self.push(push, from: connection, at: now, into: &io)
        case .presence(let presence):
            relay(presence, from: connection, at: now, into: &io)
        case .ping(let nonce):
            io.send(.pong(nonce: nonce), to: connection)
        case .pong, .error:
            break
        case .welcome, .ack, .ops, .leave:
            io.refuse(connection, code: .unknownMessageType, "\(message.type) is a message only a server sends")
        }
    }

    private func join(_ connection: ConnectionID, _ hello: Hello, at now: Timestamp, into io: inout RoomIO) {
        if members[connection] != nil {
            return io.refuse(connection, code: .alreadyJoined, "this connection already joined \(name)")
        }
        guard hello.protocolVersion >= 1 else {
            return io.fail(
                connection, code: .unsupportedProtocol, close: .fatalError,
                "protocol \(hello.protocolVersion) is not spoken here; this server speaks 1 to \(WireProtocol.version)")
        }
        if let holder = connectionOfReplica[hello.replica], let other = members[holder] {
            guard other.user.name == hello.user.name else {
                return io.fail(
                    connection, code: .replicaInUse, close: .refused,
                    "replica \(hello.replica) is in use by another user's live connection")
            }
            // The same user again (a reconnect that beat the old socket's close).
            members[holder] = nil
            io.close(holder, .replaced)
        }
        members[connection] = Member(
            replica: hello.replica, user: hello.user, sentThrough: head, lastHeard: now)
        connectionOfReplica[hello.replica] = connection
        let welcome = Welcome(
            protocolVersion: min(hello.protocolVersion, WireProtocol.version), epoch: epoch, position: head,
            content: welcomeContent(resuming: hello.since),
            peers: members.compactMap { $0.key == connection ? nil : $0.value.presence }
                .prefix(ProtocolLimits.peersInWelcome).map { $0 })
        io.send(.welcome(welcome), to: connection)
    }

    /// Exactly the committed ops after `since` when the room still has them
    /// all and `since` is of this epoch; otherwise the whole state.
    private func welcomeContent(resuming since: ResumePoint?) -> Welcome.Content {
        if let since, since.epoch == epoch, since.position <= head, since.position >= retainedBase {
            return .tail(Array(retained[Int(since.position - retainedBase)...]))
        }
        if let cached = snapshotCache, cached.head == head { return .snapshot(cached.ops) }
        let ops = committed.snapshotOps
        snapshotCache = (head, ops)
        return .snapshot(ops)
    }

    /// A connection ended; the others forget its presence.
    func leave(_ connection: ConnectionID, into io: inout RoomIO) {
        waiting.removeAll { $0.connection == connection }
        guard let member = members.removeValue(forKey: connection) else { return }
        guard connectionOfReplica[member.replica] == connection else { return }
        connectionOfReplica[member.replica] = nil
        let others = members.keys.sorted()
        if !others.isEmpty { io.outputs.append(.send(.leave(member.replica), to: others)) }
    }

    /// Drops committed ops beyond what the room retains, in large steps so
    /// the cost is spread over many commits.
    func trimRetained() {
        guard retained.count > 2 * configuration.retainedOps else { return }
        let dropped = retained.count - configuration.retainedOps
        for op in retained[..<dropped] {
            positions[op.op.id] = nil
            let replica = op.op.id.replica
            highWaterBelowRetained[replica] = max(highWaterBelowRetained[replica] ?? 0, op.op.id.counter)
        }
        retainedBase = retained[dropped - 1].position
        retained.removeFirst(dropped)
    }

    func commitHead(_ op: PositionedOp) {
        committed.apply(op.op)
        head = op.position
        retained.append(op)
        undelivered.append(op)
    }
}

/// A joined connection.
struct Member {
    var replica: ReplicaID
    var user: UserInfo
    /// The highest position this connection has been sent or told of.
    var sentThrough: UInt64
    var lastHeard: Timestamp
    /// The latest presence, relayed or held back by the throttle.
    var presence: Presence?
    var presenceRelayedAt: Timestamp?
    var presenceHeld = false
}

/// A push accepted and waiting for storage.
struct PendingPush {
    var connection: ConnectionID
    var batch: UInt64
    /// Nil when every op was a resend: nothing to store, only to acknowledge
    /// in turn.
    var ticket: StorageTicket?
    var opCount: Int
    var isStored: Bool
}

/// A stroke's chunk start, for spotting two different chunks at one index.
struct ChunkKey: Hashable {
    var entity: EntityID
    var start: UInt32
}
