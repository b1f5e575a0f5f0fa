import EaselModel
import EaselProtocol

/// The collaboration server without any I/O: connections, the rooms they
/// join, and what to send, close, load and store. A host (the
/// libwebsockets server, the network simulation) feeds it events from one
/// thread and carries out `takeOutputs()` after each turn of its loop.
///
/// Contract with the host:
/// - `open` a connection before its first message; `close` it when its
///   socket is gone, including after the server asked for the close.
/// - Answer every `.load` with `loaded` and every `.append` with `stored`,
///   in the order storage finished them.
/// - Call `tick` every few tens of milliseconds (presence relays, timeouts).
/// - Call `takeOutputs` at the end of every loop turn: commits are delivered
///   there, coalesced per connection.
public final class SyncServer {
    public let configuration: ServerConfiguration

    private enum ConnectionState {
        case awaitingHello(openedAt: Timestamp)
        case inRoom(DocumentName)
        /// The server closed it; what it still sends is ignored.
        case closing
    }

    private struct ConnectionRecord {
        var state: ConnectionState
        var invalidMessages = 0
    }

    private var connections: [ConnectionID: ConnectionRecord] = [:]
    private var rooms: [DocumentName: Room] = [:]
    private var roomsByGeneration: [UInt64: Room] = [:]
    private var nextGeneration: UInt64 = 1
    private var io = RoomIO()

    public init(configuration: ServerConfiguration = ServerConfiguration()) {
        self.configuration = configuration
    }

    /// Documents with a room in memory.
    public var openDocuments: [DocumentName] { rooms.keys.sorted { $0.rawValue < $1.rawValue } }

    public var connectionCount: Int { connections.count }

    // MARK: Events

    public func open(_ connection: ConnectionID, at now: Timestamp) {
        connections[connection] = ConnectionRecord(state: .awaitingHello(openedAt: now))
    }

    public func receive(_ message: Message, from connection: ConnectionID, at now: Timestamp) {
        guard let record = connections[connection] else { return }
        switch record.state {
        case .closing:
            return
        case .awaitingHello:
            guard case .hello(let hello) = message else {
                io.fail(connection, code: .notJoined, close: .fatalError, "the first message must be a hello")
                return settleClosures()
            }
            let room = room(for: hello.document)
            connections[connection]?.state = .inRoom(hello.document)
            room.receive(message, from: connection, at: now, into: &io)
        case .inRoom(let document):
            rooms[document]?.receive(message, from: connection, at: now, into: &io)
        }
        settleClosures()
    }

    /// Bytes that did not decode: an error with the decoder's code, and a
    /// close for a connection that keeps sending them.
    public func refuse(_ error: DecodeError, from connection: ConnectionID, at now: Timestamp) {
        guard let record = connections[connection] else { return }
        if case .closing = record.state { return }
        connections[connection]?.invalidMessages += 1
        if record.invalidMessages + 1 > configuration.invalidMessageAllowance {
            io.fail(connection, code: error.code, close: .tooManyInvalid, "too many invalid messages: \(error.detail)")
            leaveRoom(connection)
        } else {
            io.refuse(connection, code: error.code, error.detail)
        }
        settleClosures()
    }

    /// The connection's socket is gone.
    public func close(_ connection: ConnectionID, at now: Timestamp) {
        leaveRoom(connection)
        connections[connection] = nil
        settleClosures()
    }

    public func loaded(
        _ document: DocumentName, _ result: Result<CommittedHistory, RoomStorageError>, at now: Timestamp
    ) {
        guard let room = rooms[document], !room.isLoaded else { return }
        switch result {
        case .success(let history): room.loaded(history, into: &io)
        case .failure(let error): room.fail(error.message, into: &io)
        }
        settle(room)
    }

    public func stored(_ ticket: StorageTicket, _ result: Result<Void, RoomStorageError>, at now: Timestamp) {
        guard let room = roomsByGeneration[ticket.room] else { return }
        room.stored(ticket, result, into: &io)
        settle(room)
    }

    /// Hello timeouts, held presence, silent connections.
    public func tick(at now: Timestamp) {
        for (connection, record) in connections {
            if case .awaitingHello(let openedAt) = record.state,
                now.milliseconds(since: openedAt) >= configuration.helloTimeout
            {
                io.close(connection, .noHello)
            }
        }
        for room in rooms.values where room.isLoaded {
            room.tick(at: now, into: &io)
        }
        settleClosures()
    }

    /// Everything to do since the last call, in order; commits are
    /// delivered here, one coalesced message per connection and room.
    public func takeOutputs() -> [ServerOutput] {
        for room in rooms.values where room.hasUndelivered {
            room.flush(into: &io)
        }
        for (name, room) in rooms where room.isIdle {
            rooms[name] = nil
            roomsByGeneration[room.generation] = nil
            io.outputs.append(.unloaded(name, head: room.head))
        }
        settleClosures()
        defer { io.outputs.removeAll(keepingCapacity: true) }
        return io.outputs
    }

    // MARK: Rooms

    private func room(for document: DocumentName) -> Room {
        if let room = rooms[document] { return room }
        let room = Room(name: document, generation: nextGeneration, configuration: configuration)
        nextGeneration += 1
        rooms[document] = room
        roomsByGeneration[room.generation] = room
        io.outputs.append(.load(document))
        return room
    }

    private func leaveRoom(_ connection: ConnectionID) {
        guard case .inRoom(let document)? = connections[connection]?.state else { return }
        rooms[document]?.leave(connection, into: &io)
    }

    /// Forgets a failed room; notes the connections closed meanwhile.
    private func settle(_ room: Room) {
        if io.roomFailed {
            io.roomFailed = false
            if rooms[room.name] === room { rooms[room.name] = nil }
            roomsByGeneration[room.generation] = nil
        }
        settleClosures()
    }

    private func settleClosures() {
        for connection in io.closed {
            if case .inRoom? = connections[connection]?.state { leaveRoom(connection) }
            connections[connection]?.state = .closing
        }
        io.closed.removeAll(keepingCapacity: true)
    }
}
