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
    /// Loading ahead of any hello, only if the document was ever stored.
    var isWarming = false
    /// What arrived while the history loads, replayed in order once it has.
    private var waiting: [(connection: ConnectionID, arrival: Arrival, time: Timestamp)] = []

    private enum Arrival {
        case hello(Hello, ConnectionIdentity)
        case message(Message)
    }

    // MARK: Committed state

    private(set) var epoch = Epoch(rawValue: 0)
    var committed = Document()
    /// How many entities the committed document shows (for the log).
    var committedEntityCount: Int { committed.visibleCount }
    private(set) var head: UInt64 = 0
    /// The latest committed ops, after `retainedBase`: resumes within them
    /// get a tail, and resends of them are recognised op by op.
    var retained: [PositionedOp] = []
    var retainedBase: UInt64 = 0
    /// Per replica, the highest counter among ops at or below
    /// `retainedBase`: a resend at or below it is a duplicate.
    var highWaterBelowRetained: [ReplicaID: UInt64] = [:]
    private var snapshotCache: SnapshotCache?
    /// What the document holds, committed and pending, against the
    /// per-document limits.
    var content = DocumentContent()

    // MARK: Committed and pending together

    /// The position of every retained or pending op.
    var positions: [OpID: UInt64] = [:]
    var highWater: [ReplicaID: UInt64] = [:]
    var highestCounter: UInt64 = 0

    // MARK: Pending

    var pendingPushes = Queue<PendingPush>()
    /// Accepted ops waiting for storage, at positions `head + 1 ...`.
    var pendingOps = Queue<PositionedOp>()
    var pendingKinds: [EntityID: EntityKind] = [:]
    /// Each stroke's accepted appends waiting for storage, in order.
    var pendingChunks: [EntityID: [SampleChunk]] = [:]
    /// Each text's accepted ops on its characters waiting for storage, in
    /// order (Room+Text.swift).
    var pendingCharacters: [EntityID: [PendingCharacters]] = [:]
    var nextTicket: UInt64 = 1
    /// Accepted since the last flush and not yet handed to storage.
    var unstored = UnstoredOps()

    // MARK: Connections

    var members: [ConnectionID: Member] = [:]
    /// The members in the order they joined: the order outputs list them in.
    var memberOrder: [ConnectionID] = []
    var connectionOfReplica: [ReplicaID: ConnectionID] = [:]
    /// Since when the room has had no connection and nothing pending.
    private(set) var idleSince: Timestamp?

    // MARK: Delivery, once per loop turn

    /// Ops committed since the last flush, in position order.
    var undelivered: [PositionedOp] = []
    var undeliveredAcks: [(connection: ConnectionID, ack: Ack)] = []

    init(name: DocumentName, generation: UInt64, configuration: ServerConfiguration) {
        self.name = name
        self.generation = generation
        self.configuration = configuration
    }

    /// Whether anyone waits for the history to load.
    var hasWaiting: Bool { !waiting.isEmpty }

    var isIdle: Bool { isLoaded && members.isEmpty && waiting.isEmpty && pendingPushes.isEmpty }

    /// Starts or stops the unload clock after anything that changes idleness.
    func noteIdleness(at now: Timestamp) {
        if !isIdle {
            if idleSince != nil { idleSince = nil }
        } else if idleSince == nil {
            idleSince = now
        }
    }

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
        content = DocumentContent(of: history)
        for op in retained { positions[op.op.id] = op.position }
        // With nothing after it, the stored snapshot is the state's
        // snapshot ops: the first welcome sends them, not a rebuild of them
        // (at 50,000 entities an eighth of a cold join's time).
        if let snapshot = history.snapshot, history.tail.isEmpty {
            snapshotCache = SnapshotCache(head: head, ops: snapshot.state)
        }
        trimRetained()
        isLoaded = true
        let replay = waiting
        waiting = []
        for (connection, arrival, time) in replay {
            switch arrival {
            case .hello(let hello, let identity): join(connection, hello, as: identity, at: time, into: &io)
            case .message(let message): receive(message, from: connection, at: time, into: &io)
            }
        }
    }

    /// Closes every connection, as a room whose storage failed must: it
    /// cannot tell what it holds any more.
    /// Clients hear the failure's plain reason, never its detail.
    func fail(_ failure: StorageFailure, into io: inout RoomIO) {
        var everyone = memberOrder
        for (connection, _, _) in waiting where !everyone.contains(connection) { everyone.append(connection) }
        for connection in everyone {
            if case .moved(let node) = failure.kind {
                // Clients read the node from this message (Protocol/README.md, section 7).
                io.fail(connection, code: .moved, close: .moved, node.map { "moved to \($0)" } ?? "moved")
                continue
            }
            let incident = failure.incident.map { " (incident \($0))" } ?? ""
            io.fail(
                connection, code: .storageFailed, close: .storageFailed,
                "\(name): storage failed: \(failure.reason)\(incident)")
        }
        members = [:]
        memberOrder = []
        waiting = []
        // Never acknowledged: their clients send them again elsewhere.
        unstored = UnstoredOps()
        io.roomFailed = true
    }

    // MARK: Messages

    /// A message from a connection that said hello here.
    func receive(_ message: Message, from connection: ConnectionID, at now: Timestamp, into io: inout RoomIO) {
        guard isLoaded else {
            waiting.append((connection, .message(message), now))
            return
        }
        guard members[connection] != nil else { return }
        members[connection]?.lastHeard = now
        switch message {
        case .hello:
            io.refuse(connection, code: .alreadyJoined, "this connection already joined \(name)")
        case .push(let push):
            // Pushes queued while the room loaded come here together: one
            // refused for now holds back the rest (SyncServer says why).
            guard members[connection]?.holdsPushesBack != true else {
                io.refuse(
                    connection, code: .rateLimited, batch: push.batch,
                    "an earlier push was refused for now: send them again, in order, on a new connection")
                return
            }
            let heldBackBefore = io.pushesHeldBack.count
            self.push(push, from: connection, at: now, into: &io)
            if io.pushesHeldBack.count > heldBackBefore { members[connection]?.holdsPushesBack = true }
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

    /// A hello the server authenticated as `identity`.
    func join(
        _ connection: ConnectionID, _ hello: Hello, as identity: ConnectionIdentity, at now: Timestamp,
        into io: inout RoomIO
    ) {
        guard isLoaded else {
            waiting.append((connection, .hello(hello, identity), now))
            return
        }
        guard hello.protocolVersion >= 1 else {
            return io.fail(
                connection, code: .unsupportedProtocol, close: .fatalError,
                "protocol \(hello.protocolVersion) is not spoken here; this server speaks 1 to \(WireProtocol.version)")
        }
        let author = identity.user ?? hello.user.name
        // What peers were last shown of this replica, carried to a connection
        // that takes it over, so its end still sends the replica's leave.
        var inherited: Presence?
        if let holder = connectionOfReplica[hello.replica], let other = members[holder] {
            guard other.author == author else {
                return io.fail(
                    connection, code: .replicaInUse, close: .refused,
                    "replica \(hello.replica) is in use by another user's live connection")
            }
            // The same user again (a reconnect that beat the old socket's close).
            inherited = removeMember(holder)?.presence
            io.close(holder, .replaced)
        }
        guard members.count < configuration.limits.connectionsPerRoom else {
            return io.fail(
                connection, code: .roomFull, close: .tryAgainLater,
                "\(name) has \(members.count) connections, the most this server allows on one document")
        }
        let version = min(hello.protocolVersion, WireProtocol.version)
        members[connection] = Member(
            replica: hello.replica, user: hello.user, author: author, role: identity.role, protocolVersion: version,
            sentThrough: head, lastHeard: now, presence: inherited)
        memberOrder.append(connection)
        connectionOfReplica[hello.replica] = connection
        let welcome = Welcome(
            protocolVersion: version, epoch: epoch, position: head,
            content: welcomeContent(resuming: hello.since, in: version),
            peers: memberOrder.lazy.compactMap { $0 == connection ? nil : self.members[$0]?.presence }
                .prefix(ProtocolLimits.peersInWelcome).map { $0.spoken(in: version) })
        io.send(.welcome(welcome), to: connection)
    }

    /// Exactly the committed ops after `since` when the room still has them
    /// all and `since` is of this epoch; otherwise the whole state. As
    /// `version` speaks them.
    private func welcomeContent(resuming since: ResumePoint?, in version: UInt32) -> Welcome.Content {
        if let since, since.epoch == epoch, since.position <= head, since.position >= retainedBase {
            return Welcome.Content.tail(Array(retained[Int(since.position - retainedBase)...]))
                .spoken(in: version, texts: committed)
        }
        var cache =
            snapshotCache.flatMap { $0.head == head ? $0 : nil }
            ?? SnapshotCache(head: head, ops: committed.snapshotOps)
        defer { snapshotCache = cache }
        guard version < WireProtocol.version else { return .snapshot(cache.ops) }
        if let spoken = cache.spoken[version] { return .snapshot(spoken) }
        let spoken = cache.ops.spoken(in: version, texts: committed)
        cache.spoken[version] = spoken
        return .snapshot(spoken)
    }

    /// A connection ended; the others forget its presence.
    func leave(_ connection: ConnectionID, into io: inout RoomIO) {
        waiting.removeAll { $0.connection == connection }
        guard let member = removeMember(connection) else { return }
        guard connectionOfReplica[member.replica] == connection else { return }
        connectionOfReplica[member.replica] = nil
        // Peers know a member only from its presence: one that never shared
        // any leaves nothing to forget.
        if member.presence != nil, !memberOrder.isEmpty {
            io.outputs.append(.send(.leave(member.replica), to: memberOrder))
        }
    }

    @discardableResult
    private func removeMember(_ connection: ConnectionID) -> Member? {
        guard let member = members.removeValue(forKey: connection) else { return nil }
        memberOrder.removeAll { $0 == connection }
        return member
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

/// The state's snapshot ops at one head, built once for every joiner, and
/// as each older protocol version is sent them: joiners speaking one come
/// together too, and converting 20,000 ops for each of them took a fifth of
/// the service thread in `easel chaos hostile`. A new head makes a new one.
private struct SnapshotCache {
    let head: UInt64
    let ops: [Op]
    var spoken: [UInt32: [Op]] = [:]
}

/// A joined connection.
struct Member {
    var replica: ReplicaID
    var user: UserInfo
    /// The authenticated user, or the hello's name without authentication.
    var author: String
    var role: ConnectionIdentity.Role
    /// The protocol version agreed in the welcome.
    var protocolVersion: UInt32
    /// The highest position this connection has been sent or told of.
    var sentThrough: UInt64
    var lastHeard: Timestamp
    /// The latest presence, relayed or held back by the throttle.
    var presence: Presence? {
        get { boxedPresence?.value }
        set { boxedPresence = newValue.map(Boxed.init) }
    }
    /// On the heap: a presence is about 200 bytes, and inline it made every
    /// member's slot in the room's table that much bigger, whether or not
    /// the member ever sent one (most of an idle connection's cost beyond
    /// lws's own, `easel bench serve`'s memory figure).
    private var boxedPresence: Boxed<Presence>?
    var presenceRelayedAt: Timestamp?
    var presenceHeld = false
    /// A push of it was refused for now (`SyncServer`'s record says why).
    var holdsPushesBack = false

    init(
        replica: ReplicaID, user: UserInfo, author: String, role: ConnectionIdentity.Role, protocolVersion: UInt32,
        sentThrough: UInt64, lastHeard: Timestamp, presence: Presence?
    ) {
        self.replica = replica
        self.user = user
        self.author = author
        self.role = role
        self.protocolVersion = protocolVersion
        self.sentThrough = sentThrough
        self.lastHeard = lastHeard
        self.presence = presence
    }
}

/// An immutable value kept on the heap, so a struct holding one stays a
/// pointer wide; setting a new value replaces the box.
final class Boxed<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// Ops accepted and not yet handed to storage, with the ticket their
/// append will carry.
struct UnstoredOps {
    var ops: [LoggedOp] = []
    var ticket: StorageTicket?
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
