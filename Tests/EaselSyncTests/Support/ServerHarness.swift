import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport

/// A sans-IO server with in-memory storage, driven one event at a time: each
/// event returns the transcript of everything the server did in response,
/// storage work included, so a test states exactly what it expects.
final class ServerHarness {
    let server: SyncServer
    let storage: InMemoryRoomStorage
    let document: DocumentName
    var now = Timestamp(milliseconds: 1_700_000_000_000)
    private let completions = StorageCompletions()
    private var nextConnection: UInt64 = 1

    init(
        configuration: ServerConfiguration = ServerConfiguration(), commitsImmediately: Bool = false,
        authenticate: @escaping Authenticator = { _, _ in .success(.anonymousEditor) }
    ) throws {
        server = SyncServer(configuration: configuration, authenticate: authenticate)
        storage = InMemoryRoomStorage(commitsImmediately: commitsImmediately)
        document = try DocumentName("boards/one")
    }

    static func user(_ name: String) -> UserInfo {
        UserInfo(name: name, initials: String(name.prefix(1)).uppercased(), color: Color(rawValue: 0x2266_AAFF))
    }

    func hello(_ replica: ReplicaID, as name: String, since: ResumePoint? = nil, protocol version: UInt32 = 1)
        -> Message
    {
        .hello(
            Hello(protocolVersion: version, document: document, replica: replica, since: since, user: Self.user(name)))
    }

    // MARK: Events

    /// Opens a connection, its URL's path naming `path` if given.
    func connect(path: DocumentName? = nil) -> ConnectionID {
        let connection = ConnectionID(rawValue: nextConnection)
        nextConnection += 1
        server.open(connection, at: now, path: path)
        return connection
    }

    /// Opens a connection and says hello; the transcript holds the welcome.
    func join(_ replica: ReplicaID, as name: String, since: ResumePoint? = nil, protocol version: UInt32 = 1)
        -> (ConnectionID, Transcript)
    {
        let connection = connect()
        return (connection, send(hello(replica, as: name, since: since, protocol: version), from: connection))
    }

    @discardableResult
    func send(_ message: Message, from connection: ConnectionID) -> Transcript {
        settle { $0.server.receive(message, from: connection, at: $0.now) }
    }

    @discardableResult
    func push(_ ops: [Op], batch: UInt64 = 1, from connection: ConnectionID) -> Transcript {
        send(.push(Push(batch: batch, ops: ops)), from: connection)
    }

    /// Several messages in one turn of the host's loop: outputs are taken
    /// only after the last, as the server's service thread takes them.
    @discardableResult
    func sendInOneTurn(_ messages: [(Message, from: ConnectionID)]) -> Transcript {
        settle { harness in
            for (message, connection) in messages { harness.server.receive(message, from: connection, at: harness.now) }
        }
    }

    /// Storage commits everything pending.
    @discardableResult
    func commit() -> Transcript {
        settle { $0.storage.commitPending() }
    }

    /// Pushes, commits, and returns the transcript of the commit.
    @discardableResult
    func pushCommitted(_ ops: [Op], batch: UInt64 = 1, from connection: ConnectionID) -> Transcript {
        push(ops, batch: batch, from: connection)
        return commit()
    }

    @discardableResult
    func advance(by milliseconds: Int64) -> Transcript {
        now = now + milliseconds
        return settle { $0.server.tick(at: $0.now) }
    }

    @discardableResult
    func close(_ connection: ConnectionID) -> Transcript {
        settle { $0.server.close(connection, at: $0.now) }
    }

    @discardableResult
    func refuse(_ error: DecodeError, from connection: ConnectionID) -> Transcript {
        settle { $0.server.refuse(error, from: connection, at: $0.now) }
    }

    /// A page or socket named the document before any hello.
    @discardableResult
    func warm(_ document: DocumentName? = nil) -> Transcript {
        settle { $0.server.warm(document ?? $0.document, at: $0.now) }
    }

    /// The router now sends the document to `node` (`SyncServer.handOver`).
    func handOver(to node: String) -> Transcript {
        settle { $0.server.handOver($0.document, to: node, at: $0.now) }
    }

    @discardableResult
    func completeLoads() -> Transcript {
        settle { $0.storage.completeLoads() }
    }

    /// Runs an event, then carries out outputs and storage answers until the
    /// server has nothing more to say.
    private func settle(_ event: (ServerHarness) -> Void) -> Transcript {
        event(self)
        var transcript = Transcript()
        while true {
            let outputs = server.takeOutputs()
            transcript.outputs += outputs
            for output in outputs { _ = completions.perform(output, on: storage) }
            if completions.deliver(to: server, at: now) == 0, outputs.isEmpty { return transcript }
        }
    }
}

/// What the server did in response to one event.
struct Transcript {
    var outputs: [ServerOutput] = []

    /// The messages sent to a connection, in order.
    func messages(to connection: ConnectionID) -> [Message] {
        outputs.compactMap {
            guard case .send(let message, let connections) = $0, connections.contains(connection) else { return nil }
            return message
        }
    }

    func errors(to connection: ConnectionID) -> [ErrorMessage] {
        messages(to: connection).compactMap { if case .error(let error) = $0 { error } else { nil } }
    }

    func welcome(to connection: ConnectionID) -> Welcome? {
        messages(to: connection).lazy.compactMap { if case .welcome(let welcome) = $0 { welcome } else { nil } }.first
    }

    func closes(of connection: ConnectionID) -> [CloseCode] {
        outputs.compactMap { output -> CloseCode? in
            guard case .close(let closed, let code) = output, closed == connection else { return nil }
            return code
        }
    }

    /// The ops handed to storage.
    var appended: [LoggedOp] {
        outputs.flatMap { output -> [LoggedOp] in
            guard case .append(let ops, _, _) = output else { return [] }
            return ops
        }
    }

    /// Every `send` output, as (message, recipients).
    var sends: [(Message, [ConnectionID])] {
        outputs.compactMap { output -> (Message, [ConnectionID])? in
            guard case .send(let message, let recipients) = output else { return nil }
            return (message, recipients)
        }
    }
}
