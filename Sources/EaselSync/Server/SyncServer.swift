import EaselModel
import EaselProtocol

/// The collaboration server without any I/O: connections, the rooms they
/// join, and what to send, close, load and store. A host (the
/// libwebsockets server, the network simulation) feeds it events from one
/// thread and carries out `takeOutputs()` after each turn of its loop.
///
/// Contract with the host (Docs/sync.md):
/// - `open` a connection before its first message; `close` it when its
///   socket is gone, including after the server asked for the close.
/// - Answer every `.load` with `loaded`, every `.warm` with `warmed` and
///   every `.append` with `stored`, in the order storage finished them.
/// - Call `tick` every few tens of milliseconds (presence relays, timeouts,
///   unloading).
/// - Call `takeOutputs` at the end of every loop turn: commits are delivered
///   there, coalesced per connection.
public final class SyncServer {
    public let configuration: ServerConfiguration
    private let authenticate: Authenticator

    private enum ConnectionState {
        case awaitingHello(openedAt: Timestamp)
        case inRoom(DocumentName)
        /// The server closed it; what it still sends is ignored.
        case closing
    }

    private struct ConnectionRecord {
        var state: ConnectionState
        var pushes: RateBucket
        var presence: RateBucket
        /// Pings, pongs and whatever else is neither a push nor presence.
        var others: RateBucket
        /// When its credential runs out, once joined.
        var expires: Timestamp?
        /// Refusals the connection may still earn before it is closed.
        var strikes: RateBucket
        /// The document its WebSocket URL named (`/d/<document>`), which
        /// its hello must name too: a router sent it here by that path.
        var pathDocument: DocumentName?
        /// A push of it was refused for now: it comes again, and every push
        /// after it is refused until then. Taking a later one first would
        /// store a replica's ops out of their order, and the room, which
        /// knows a replica's older ops by their counters' high-water mark,
        /// would take the refused ones, sent again, for ops it has stored.
        var holdsPushesBack = false

        init(opening state: ConnectionState, limits: ServerLimits, at now: Timestamp) {
            self.state = state
            pushes = RateBucket(perSecond: limits.pushesPerSecond, burst: 2 * limits.pushesPerSecond, at: now)
            presence = RateBucket(perSecond: limits.presencePerSecond, burst: 2 * limits.presencePerSecond, at: now)
            others = RateBucket(
                perSecond: limits.otherMessagesPerSecond, burst: 2 * limits.otherMessagesPerSecond, at: now)
            strikes = RateBucket(perSecond: 1, burst: limits.refusedMessageAllowance, at: now)
        }
    }

    private var connections: [ConnectionID: ConnectionRecord] = [:]
    /// How many connections await their hello, and how many have joined:
    /// each pool has its own limit.
    private var awaitingHello = 0
    private var joined = 0
    private var rooms: [DocumentName: Room] = [:]
    private var roomsByGeneration: [UInt64: Room] = [:]
    /// Rooms with ops to hand to storage or commits to deliver at the end
    /// of the turn.
    private var roomsToFlush: [Room] = []
    private var nextGeneration: UInt64 = 1
    private var io = RoomIO()
    private var events: [ServerEvent] = []

    /// A server; without an authenticator every hello is an anonymous editor
    /// (for loopback only; `easel serve --secret` plugs tokens in here).
    public init(
        configuration: ServerConfiguration = ServerConfiguration(),
        authenticate: @escaping Authenticator = { _, _ in .success(.anonymousEditor) }
    ) {
        self.configuration = configuration
        self.authenticate = authenticate
    }

    /// Documents with a room in memory.
    public var openDocuments: [DocumentName] { rooms.keys.sorted { $0.rawValue < $1.rawValue } }

    public var roomCount: Int { rooms.count }

    /// Ops the rooms accepted that storage has not yet committed: a disk
    /// falling behind shows here first.
    public var opsAwaitingStorage: Int { rooms.values.reduce(0) { $0 + $1.pendingOps.count } }

    // MARK: Events

    /// A connection opened; `path` is the document its URL's path named, if
    /// it named one.
    public func open(_ connection: ConnectionID, at now: Timestamp, path: DocumentName? = nil) {
        connections[connection] = ConnectionRecord(
            opening: .awaitingHello(openedAt: now), limits: configuration.limits, at: now)
        connections[connection]?.pathDocument = path
        awaitingHello += 1
        if awaitingHello > configuration.limits.connectionsAwaitingHello {
            io.fail(
                connection, code: .serverFull, close: .tryAgainLater,
                "\(awaitingHello - 1) connections are waiting to say hello, the most this server allows")
            settleClosures(at: now)
        }
    }

    /// Moves a connection to another state, keeping the pools' counts.
    private func setState(of connection: ConnectionID, to state: ConnectionState) {
        guard let old = connections[connection]?.state else { return }
        count(old, by: -1)
        count(state, by: 1)
        connections[connection]?.state = state
    }

    private func count(_ state: ConnectionState, by change: Int) {
        switch state {
        case .awaitingHello: awaitingHello += change
        case .inRoom: joined += change
        case .closing: break
        }
    }

    public func receive(_ message: Message, from connection: ConnectionID, at now: Timestamp) {
        guard let index = connections.index(forKey: connection) else { return }
        let record = connections.values[index]
        switch record.state {
        case .closing:
            return
        case .awaitingHello:
            guard case .hello(let hello) = message else {
                io.fail(connection, code: .notJoined, close: .fatalError, "the first message must be a hello")
                return settleClosures(at: now)
            }
            if let path = record.pathDocument, path != hello.document {
                io.fail(
                    connection, code: .pathMismatch, close: .refused,
                    "the hello names \(hello.document) but the URL's path names \(path)")
                return settleClosures(at: now)
            }
            switch authenticate(hello, now) {
            case .failure(let refusal):
                io.fail(connection, code: refusal.code, close: .refused, refusal.message)
            case .success(let identity):
                guard joined < configuration.limits.connections else {
                    io.fail(
                        connection, code: .serverFull, close: .tryAgainLater,
                        "the server has \(joined) connections, the most it allows")
                    break
                }
                guard let room = room(for: hello.document, at: now) else {
                    io.fail(
                        connection, code: .serverFull, close: .tryAgainLater,
                        "the server holds \(rooms.count) documents, the most it allows, and none is idle")
                    break
                }
                setState(of: connection, to: .inRoom(hello.document))
                connections[connection]?.expires = identity.expires
                events.append(
                    .joining(connection, hello.document, user: identity.user ?? hello.user.name, role: identity.role))
                room.join(connection, hello, as: identity, at: now, into: &io)
                settle(room, at: now)
            }
        case .inRoom(let document):
            guard let room = rooms[document] else { return }
            if case .push(let push) = message, record.holdsPushesBack {
                // A strike like any refusal: a flood of pushes is closed all the same.
                io.refuse(
                    connection, code: .rateLimited, batch: push.batch,
                    "an earlier push was refused for now: send them again, in order, on a new connection")
                break
            }
            guard withinRate(message, from: connection, record: index, at: now) else { break }
            room.receive(message, from: connection, at: now, into: &io)
            settle(room, at: now)
        }
        settleClosures(at: now)
    }

    /// Takes a token for the message from the connection's bucket for its
    /// kind; a message over the rate is refused (a push is sent again later
    /// by a well-behaved client; presence is dropped).
    ///
    /// The bucket is taken from in place at `record`, the connection's index
    /// in `connections`: through `connections[connection]?`, each push
    /// moved the whole record out of the table and back (about 1,800
    /// instructions, callgrind).
    private func withinRate(
        _ message: Message, from connection: ConnectionID, record: Dictionary<ConnectionID, ConnectionRecord>.Index,
        at now: Timestamp
    ) -> Bool {
        let limits = configuration.limits
        if case .push(let push) = message {
            if connections.values[record].pushes.take(at: now) { return true }
            io.refuse(
                connection, code: .rateLimited, batch: push.batch,
                "over \(limits.pushesPerSecond) pushes a second: send it again later")
            return false
        }
        if case .presence = message {
            if connections.values[record].presence.take(at: now) { return true }
            io.refuse(
                connection, code: .rateLimited, "over \(limits.presencePerSecond) presence messages a second: dropped")
            return false
        }
        if connections.values[record].others.take(at: now) { return true }
        io.refuse(
            connection, code: .rateLimited,
            "over \(limits.otherMessagesPerSecond) messages a second besides pushes and presence: dropped")
        return false
    }

    /// Activity below the message layer (a WebSocket ping or pong): the
    /// connection is alive, though it sent no message.
    public func heard(_ connection: ConnectionID, at now: Timestamp) {
        guard case .inRoom(let document)? = connections[connection]?.state else { return }
        rooms[document]?.members[connection]?.lastHeard = now
    }

    /// Bytes that did not decode: an error with the decoder's code, and a
    /// close for a connection that keeps sending them.
    public func refuse(_ error: DecodeError, from connection: ConnectionID, at now: Timestamp) {
        guard let record = connections[connection] else { return }
        if case .closing = record.state { return }
        io.refuse(connection, code: error.code, batch: error.batch, error.detail)
        settleClosures(at: now)
    }

    /// Each refusal costs its connection a strike; a connection out of
    /// strikes is closed with 4001, so one that keeps sending garbage, or
    /// floods, stops costing the server anything.
    private func settleStrikes(at now: Timestamp) {
        // Settled after every message: most leave nothing refused or held
        // back, and each look into `io` is a dynamic exclusivity check.
        guard !io.refused.isEmpty || !io.pushesHeldBack.isEmpty else { return }
        var failed: Set<ConnectionID> = []
        for (connection, code) in io.refused where !failed.contains(connection) {
            guard let record = connections[connection] else { continue }
            if case .closing = record.state { continue }
            if connections[connection]?.strikes.take(at: now) == true { continue }
            failed.insert(connection)
            io.fail(
                connection, code: code, close: .tooManyInvalid,
                "too many refused messages (over \(configuration.limits.refusedMessageAllowance) at once)")
        }
        io.refused.removeAll(keepingCapacity: true)
        for connection in io.pushesHeldBack { connections[connection]?.holdsPushesBack = true }
        io.pushesHeldBack.removeAll(keepingCapacity: true)
    }

    /// The connection's socket is gone.
    public func close(_ connection: ConnectionID, at now: Timestamp) {
        leaveRoom(connection, at: now)
        if let state = connections[connection]?.state { count(state, by: -1) }
        connections[connection] = nil
        settleClosures(at: now)
    }

    public func loaded(
        _ document: DocumentName, _ result: Result<CommittedHistory, StorageFailure>, at now: Timestamp
    ) {
        guard let room = rooms[document], !room.isLoaded else { return }
        switch result {
        case .success(let history):
            room.loaded(history, into: &io)
            events.append(.roomLoaded(document, head: history.head, entities: room.committedEntityCount))
        case .failure(let failure):
            room.fail(failure, into: &io)
            events.append(.roomFailed(document, failure))
        }
        settle(room, at: now)
        settleClosures(at: now)
    }

    /// Loads a document's room ahead of any hello, if the document was ever
    /// stored: a page or socket at `/d/<document>` names it half a second
    /// before the page can say hello (its module must be ready first), and
    /// the room of a big board takes a quarter of a second to load. Creates
    /// no document, unloads no other room for it, and leaves a tenth of the
    /// rooms (at least one) to hellos, since a room loading cannot be
    /// unloaded for one; a room nobody joins unloads after `unloadDelay`, as
    /// any idle room does. A warming room is never forgotten before its own
    /// answer, so answers, which name documents, reach the room they were
    /// asked for.
    public func warm(_ document: DocumentName, at now: Timestamp) {
        let keptForHellos = max(1, configuration.limits.rooms / 10)
        guard rooms[document] == nil, rooms.count + keptForHellos < configuration.limits.rooms else { return }
        makeRoom(document).isWarming = true
        io.outputs.append(.warm(document))
    }

    /// A warm load's answer. A document never stored gets its room only
    /// when a hello came meanwhile, loaded then as any hello's.
    public func warmed(
        _ document: DocumentName, _ result: Result<CommittedHistory?, StorageFailure>, at now: Timestamp
    ) {
        guard let room = rooms[document], room.isWarming, !room.isLoaded else { return }
        room.isWarming = false
        switch result {
        case .success(let history?):
            loaded(document, .success(history), at: now)
        case .success(nil) where room.hasWaiting:
            io.outputs.append(.load(document))
        case .success(nil):
            forget(room)
        case .failure(let failure) where room.hasWaiting:
            loaded(document, .failure(failure), at: now)
        case .failure(let failure):
            forget(room)
            events.append(.roomFailed(document, failure))
        }
    }

    /// Storage says the document may no longer be served here (another
    /// node took its lease, or this one is draining): its clients are
    /// closed as the failure says (`moved`), and the room is forgotten.
    /// Its ops still on their way to storage were acknowledged to nobody;
    /// clients send them again wherever they reconnect.
    public func evict(_ document: DocumentName, because failure: StorageFailure, at now: Timestamp) {
        guard let room = rooms[document] else { return }
        room.fail(failure, into: &io)
        events.append(.roomFailed(document, failure))
        settle(room, at: now)
        settleClosures(at: now)
    }

    /// Sends the document's clients to `node` (503 `moved to <node>`,
    /// close 4007) and unloads its room, as an idle room is: the storage
    /// gives the document's lease up once the room's queued appends are
    /// committed, for that node to take. A room still loading is left to
    /// finish: the node that asked gives up after its wait, and asks again
    /// with its next client.
    public func handOver(_ document: DocumentName, to node: String, at now: Timestamp) {
        letGo(document, because: StorageFailure(.moved(to: node), "handed over to \(node)"), at: now)
    }

    /// What `letGo` found.
    public enum LetGo: Sendable, Equatable {
        /// The room closed its clients and unloaded.
        case unloaded
        /// The room is still loading, and was left to finish.
        case loading
        /// No room serves the document.
        case absent
    }

    /// Closes a loaded room's clients with `failure` and unloads it, as an
    /// idle room is: storage gives the document's lease up once the room's
    /// queued appends are committed.
    @discardableResult
    public func letGo(_ document: DocumentName, because failure: StorageFailure, at now: Timestamp) -> LetGo {
        guard let room = rooms[document] else { return .absent }
        guard room.isLoaded else { return .loading }
        room.fail(failure, into: &io)
        io.roomFailed = false
        unload(room)
        settleClosures(at: now)
        return .unloaded
    }

    public func stored(_ ticket: StorageTicket, _ result: Result<Void, StorageFailure>, at now: Timestamp) {
        guard let room = roomsByGeneration[ticket.room] else { return }
        room.stored(ticket, result, into: &io)
        if case .failure(let failure) = result, io.roomFailed { events.append(.roomFailed(room.name, failure)) }
        settle(room, at: now)
        settleClosures(at: now)
    }

    /// Hello timeouts, held presence, silent connections, idle rooms.
    public func tick(at now: Timestamp) {
        for (connection, record) in connections {
            switch record.state {
            case .awaitingHello(let openedAt) where now.milliseconds(since: openedAt) >= configuration.helloTimeout:
                io.close(connection, .noHello)
            case .inRoom where record.expires.map { now >= $0 } == true:
                io.fail(connection, code: .tokenExpired, close: .refused, "the access token expired")
            default:
                break
            }
        }
        for room in Array(rooms.values) where room.isLoaded {
            room.tick(at: now, into: &io)
            settle(room, at: now)
        }
        settleClosures(at: now)
        for room in Array(rooms.values) {
            guard let idleSince = room.idleSince, now.milliseconds(since: idleSince) >= configuration.unloadDelay
            else { continue }
            unload(room)
        }
    }

    /// Everything to do since the last call, in order; commits are
    /// delivered here, one coalesced message per connection and room.
    /// What happened since the last call, for the host's log.
    public func takeEvents() -> [ServerEvent] {
        // Emptying an array the caller now shares would allocate a fresh
        // one, after every callback of the host's loop, mostly for nothing.
        guard !events.isEmpty else { return [] }
        var taken: [ServerEvent] = []
        swap(&taken, &events)
        return taken
    }

    public func takeOutputs() -> [ServerOutput] {
        var taken: [ServerOutput] = []
        takeOutputs(into: &taken)
        return taken
    }

    /// What to carry out, in place of what `buffer` held: a host that
    /// hands back the same buffer every turn allocates none.
    ///
    /// Each room's ops accepted since its last append go to storage as one
    /// append, unless `handingOverAppends` is false: a host that takes
    /// outputs after every event of its loop's turn passes false for all
    /// but the last, so a turn's pushes share one handoff while the rest
    /// (welcomes, presence, refusals) is carried out as it comes.
    public func takeOutputs(into buffer: inout [ServerOutput], handingOverAppends: Bool = true) {
        var stillUnstored = 0
        for index in roomsToFlush.indices {
            let room = roomsToFlush[index]
            if handingOverAppends { room.flushUnstored(into: &io) }
            room.flush(into: &io)
            if room.hasUnstored {
                roomsToFlush[stillUnstored] = room
                stillUnstored += 1
            }
        }
        roomsToFlush.removeLast(roomsToFlush.count - stillUnstored)
        buffer.removeAll(keepingCapacity: true)
        guard !io.outputs.isEmpty else { return }
        swap(&buffer, &io.outputs)
    }

    // MARK: Rooms

    /// The document's room, loading it when it is not in memory; nil when
    /// the server holds as many rooms as it may and none is idle.
    private func room(for document: DocumentName, at now: Timestamp) -> Room? {
        if let room = rooms[document] { return room }
        if rooms.count >= configuration.limits.rooms {
            let idle = rooms.values.compactMap { room in room.idleSince.map { (room, $0) } }
            guard let (longestIdle, _) = idle.min(by: { $0.1 < $1.1 }) else { return nil }
            unload(longestIdle)
        }
        let room = makeRoom(document)
        io.outputs.append(.load(document))
        return room
    }

    private func makeRoom(_ document: DocumentName) -> Room {
        let room = Room(name: document, generation: nextGeneration, configuration: configuration)
        nextGeneration += 1
        rooms[document] = room
        roomsByGeneration[room.generation] = room
        return room
    }

    private func leaveRoom(_ connection: ConnectionID, at now: Timestamp) {
        guard case .inRoom(let document)? = connections[connection]?.state, let room = rooms[document] else { return }
        room.leave(connection, into: &io)
        settle(room, at: now)
    }

    /// After a call into a room: forget it if it failed; otherwise note
    /// whether it has commits to deliver and whether it went idle.
    private func settle(_ room: Room, at now: Timestamp) {
        if io.roomFailed {
            io.roomFailed = false
            forget(room)
            return
        }
        if room.needsFlush, !roomsToFlush.contains(where: { $0 === room }) { roomsToFlush.append(room) }
        room.noteIdleness(at: now)
    }

    private func unload(_ room: Room) {
        forget(room)
        io.outputs.append(.unloaded(room.name, head: room.head))
        events.append(.roomUnloaded(room.name, head: room.head))
    }

    private func forget(_ room: Room) {
        if rooms[room.name] === room { rooms[room.name] = nil }
        roomsByGeneration[room.generation] = nil
        roomsToFlush.removeAll { $0 === room }
    }

    /// Notes the connections closed meanwhile: they leave their room, and
    /// what they still send is ignored.
    private func settleClosures(at now: Timestamp) {
        settleStrikes(at: now)
        while let connection = io.closed.popLast() {
            if case .inRoom? = connections[connection]?.state { leaveRoom(connection, at: now) }
            setState(of: connection, to: .closing)
        }
    }
}
