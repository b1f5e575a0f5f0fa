import EaselClient
import EaselClientLWS
import EaselModel
import EaselProtocol
import EaselStore
import EaselSync
import EaselTestSupport
import Foundation
import Testing

/// Our own client (EaselClient on EaselClientLWS's libwebsockets transport)
/// against the real server.
@Suite("EaselClient over real sockets", .serialized)
struct ClientOverSocketsTests {
    static let origin = Timestamp(milliseconds: 0)

    func session(
        _ name: String, replica: ReplicaID, document: String, server: ServerProcess, loop: ClientLoop,
        encoding: WireEncoding = .binary, recorder: Recorder? = nil
    ) throws -> DocumentSession {
        let engine = SyncClient(
            document: try DocumentName(document),
            user: UserInfo(name: name, initials: String(name.prefix(1)), color: .black), replica: replica,
            configuration: SyncClientConfiguration(encoding: encoding), at: Self.origin)
        guard let address = WebSocketAddress("ws://127.0.0.1:\(server.port)") else {
            throw ServerProcessError("bad address")
        }
        let session = DocumentSession(engine: engine) { encoding in
            let transport = loop.transport(to: address, subprotocol: encoding.subprotocol)
            return recorder.map { RecordingTransport(transport, recorder: $0, encoding: encoding) } ?? transport
        }
        session.start()
        return session
    }

    func place(_ session: DocumentSession, _ emoji: String, at x: Float) throws {
        try session.edit { try $0.perform(.place(.emoji(emoji, size: 40), at: Point(x: x, y: 50)), at: Self.origin) }
    }

    func settled(_ session: DocumentSession) -> Bool {
        session.wait(timeout: .seconds(15)) { $0.connectionState == .connected && $0.unacknowledged.isEmpty }
    }

    func converged(_ sessions: [DocumentSession], entities: Int) -> Bool {
        sessions.allSatisfy { session in
            session.wait(timeout: .seconds(15)) { $0.editor.document.visibleCount == entities }
        } && Set(sessions.map { $0.read { $0.editor.document.stateHash } }).count == 1
    }

    @Test func twoClientsEditOneDocumentThroughRealSocketsAndConvergeAndALateJoinerGetsTheSameState() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let loop = try ClientLoop()
        defer { loop.shutdown() }
        let alice = try session(
            "alice", replica: ReplicaID(rawValue: 0xA1), document: "sockets/two", server: server, loop: loop)
        let bob = try session(
            "bob", replica: ReplicaID(rawValue: 0xB2), document: "sockets/two", server: server, loop: loop,
            encoding: .json)
        defer {
            alice.stop()
            bob.stop()
        }
        #expect(settled(alice) && settled(bob))
        for index in 0..<5 {
            try place(alice, "🍎", at: Float(index * 10))
            try place(bob, "🍐", at: Float(index * 10 + 5))
        }
        #expect(settled(alice) && settled(bob))
        #expect(converged([alice, bob], entities: 10))

        let late = try session(
            "carol", replica: ReplicaID(rawValue: 0xC3), document: "sockets/two", server: server, loop: loop)
        defer { late.stop() }
        #expect(converged([alice, bob, late], entities: 10))
    }

    @Test func aLateJoinerOfABigDocumentGetsAWelcomeEncodedOffTheServiceThreadAndThenWhatFollowsIt() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let loop = try ClientLoop()
        defer { loop.shutdown() }
        let alice = try session(
            "alice", replica: ReplicaID(rawValue: 0xA1), document: "sockets/big", server: server, loop: loop)
        defer { alice.stop() }
        #expect(settled(alice))
        try alice.edit { engine in
            for index in 0..<600 {
                try engine.perform(.place(.emoji("🌲", size: 20), at: Point(x: Float(index), y: 0)), at: Self.origin)
            }
        }
        #expect(settled(alice))

        let binary = try session(
            "bob", replica: ReplicaID(rawValue: 0xB2), document: "sockets/big", server: server, loop: loop)
        let json = try session(
            "carol", replica: ReplicaID(rawValue: 0xC3), document: "sockets/big", server: server, loop: loop,
            encoding: .json)
        defer {
            binary.stop()
            json.stop()
        }
        // Committed while the welcomes may still be encoding: it must
        // reach the joiners after them, never before.
        try place(alice, "🍒", at: 999)
        #expect(converged([alice, binary, json], entities: 601))

        let scrape = try OutsideClient.run(["\(server.port)", "http", "/metrics"])
        let line = ((scrape["body"] as? String) ?? "").split(separator: "\n")
            .first { $0.hasPrefix("easel_welcomes_encoded_off_thread_total ") }
        #expect((line?.split(separator: " ").last).flatMap { Double($0) } ?? 0 >= 2)
    }

    @Test func aClientThatReconnectsWithSinceReceivesExactlyTheOpsItMissed() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let loop = try ClientLoop()
        defer { loop.shutdown() }
        let writer = try session(
            "alice", replica: ReplicaID(rawValue: 0xA1), document: "sockets/since", server: server, loop: loop)
        defer { writer.stop() }
        try place(writer, "🍎", at: 0)
        #expect(settled(writer))

        let recorder = Recorder()
        let reader = try session(
            "bob", replica: ReplicaID(rawValue: 0xB2), document: "sockets/since", server: server, loop: loop,
            recorder: recorder)
        #expect(converged([writer, reader], entities: 1))
        reader.stop()
        #expect(reader.wait(timeout: .seconds(5)) { $0.connectionState == .offline })
        let since = try #require(reader.read { $0.resumePoint })

        for index in 1...3 { try place(writer, "🍐", at: Float(index * 10)) }
        #expect(settled(writer))
        recorder.clear()
        reader.start()
        defer { reader.stop() }
        #expect(converged([writer, reader], entities: 4))

        let welcomes = recorder.messages.compactMap { if case .welcome(let welcome) = $0 { welcome } else { nil } }
        #expect(welcomes.count == 1)
        guard case .tail(let ops)? = welcomes.first?.content else {
            Issue.record(
                "a resume within the room's retained ops must get a tail, got \(String(describing: welcomes.first))")
            return
        }
        #expect(ops.map(\.position) == Array(since.position + 1...since.position + 3))
    }

    @Test func afterTheServerIsKilledAndRestartedTheClientsReconnectAndConvergeWithEveryAcknowledgedOp() throws {
        let database = temporaryDatabase()
        let first = try ServerProcess(database: database)
        defer { first.kill() }
        let port = first.port
        let loop = try ClientLoop()
        defer { loop.shutdown() }
        let alice = try session(
            "alice", replica: ReplicaID(rawValue: 0xA1), document: "sockets/kill", server: first, loop: loop)
        let bob = try session(
            "bob", replica: ReplicaID(rawValue: 0xB2), document: "sockets/kill", server: first, loop: loop)
        defer {
            alice.stop()
            bob.stop()
        }
        for index in 0..<4 { try place(alice, "🍎", at: Float(index * 10)) }
        #expect(settled(alice))
        first.kill()
        #expect(alice.wait(timeout: .seconds(5)) { $0.connectionState == .offline })
        // Edits while the server is down wait in the outboxes.
        try place(alice, "🍋", at: 100)
        try place(bob, "🍐", at: 200)

        let second = try ServerProcess(database: database, port: port)
        defer { second.kill() }
        #expect(settled(alice) && settled(bob))
        #expect(converged([alice, bob], entities: 6))
        second.kill()
        #expect(try OpStore(path: database).head(of: "sockets/kill") >= 6)
    }
}

/// Messages a client received, decoded.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [Message] = []

    func record(_ message: Message) { lock.withLock { received.append(message) } }
    func clear() { lock.withLock { received = [] } }
    var messages: [Message] { lock.withLock { received } }
}

/// A transport that notes what arrives before passing it on.
final class RecordingTransport: WebSocketTransport, TransportDelegate, @unchecked Sendable {
    private let inner: any WebSocketTransport
    private let recorder: Recorder
    private let encoding: WireEncoding
    private var delegate: (any TransportDelegate)?

    init(_ inner: any WebSocketTransport, recorder: Recorder, encoding: WireEncoding) {
        self.inner = inner
        self.recorder = recorder
        self.encoding = encoding
    }

    func open(_ delegate: any TransportDelegate) {
        self.delegate = delegate
        inner.open(self)
    }

    func send(_ message: [UInt8]) { inner.send(message) }
    func close() { inner.close() }
    func transportOpened() { delegate?.transportOpened() }

    func transportReceived(_ bytes: [UInt8]) {
        if let message = try? Message(decoding: bytes, as: encoding) { recorder.record(message) }
        delegate?.transportReceived(bytes)
    }

    func transportClosed() { delegate?.transportClosed() }
}
