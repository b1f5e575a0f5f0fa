import CLibWebSockets
import EaselHTTP
import EaselModel
import EaselProtocol
import EaselStore
import EaselSync
import Foundation
import Logging

/// The libwebsockets service thread's world: the context, the connections,
/// and the sans-IO server it feeds. Unchecked: everything here is touched
/// only on the service thread, except `inbox` and `wake()`, which other
/// threads use.
final class ServiceHost: @unchecked Sendable {
    let inbox = Inbox()
    let server: SyncServer
    let storage: any RoomStorage
    let metrics: ServerMetrics
    private let limits: ServerLimits
    /// What the operator reads (ServerLog.swift).
    var log: ServerLog
    /// The time every event is stamped with.
    let clock: HostClock
    /// Whether the last storage answer was a failure, so the first success
    /// after one is logged as a recovery. Storage answers on its own thread.
    let storageHealth = StorageHealth()
    /// Appends slower than this from handoff to commit are logged.
    let slowCommits = SlowCommits(threshold: .milliseconds(250))
    /// The web canvas's files; nil when the server runs without a page.
    let site: WebSite?
    /// Where queued messages are framed for one write; lws is told it may
    /// send that much at once (`tx_packet_size`), or it would cut every
    /// write to its receive-buffer size and copy the rest. It bounds what
    /// lws keeps of a write a stalled reader's socket did not take.
    private let batch = FrameBatch(capacity: ServiceHost.writeBytes)
    static let writeBytes = 64 << 10
    /// Delivery, shared welcomes and backpressure.
    private lazy var fanout = Fanout(limits: limits, metrics: metrics) { [inbox, weak self] number, frames in
        if inbox.add(.encoded(number, frames)) { self?.wake() }
    }
    /// The HTTP requests in progress: blobs, and whole answers.
    private(set) lazy var http = HTTPExchanges(
        blobs: blobs, limits: blobLimits, authenticate: authenticate, clock: clock, logger: log.logger
    ) { [inbox, weak self] number, answer in
        if inbox.add(.blob(number, answer)) { self?.wake() }
    }
    private let blobs: any BlobStorage
    private let blobLimits: BlobLimits
    private let authenticate: Authenticator
    /// The libwebsockets context; nil only while `init` runs.
    private var lws: LWSContext?
    /// Accepts connections and checks each first request's head.
    private let frontDoor: FrontDoor
    /// Connections handed over, adopted once the current service call ends.
    private var arriving: [Int32] = []
    var connections: [ConnectionID: LiveConnection] { fanout.connections }
    private var nextConnection: UInt64 = 1
    private var lastTick = Timestamp(milliseconds: 0)
    private var spareOutputs: [ServerOutput] = []
    private var memoryReturn = MemoryReturn()
    var shutdown = Shutdown()
    /// Set for a node of several: told when a stop begins, so other nodes
    /// wait for this one's documents instead of sending their clients back.
    var onDrain: (@Sendable () -> Void)?
    /// This node's name, when it is one of several: what `GET
    /// /d/<document>?home=1` answers, the router having chosen it.
    var nodeName: String?
    /// A node's: closes its rooms once its leases are in doubt.
    var leaseGuard: LeaseGuard?
    private var tearingDown = false

    /// The port the server listens on (the one asked for, or the one the
    /// system chose for port 0).
    var port: Int { frontDoor.port }

    /// How the service loop waits for its connections ("epoll" on Linux).
    var eventLoop: String { lws?.backend ?? "none" }

    init(
        host: String, port: Int, storage: any RoomStorage, metrics: ServerMetrics, configuration: ServerConfiguration,
        site: WebSite?, blobs: any BlobStorage, blobLimits: BlobLimits, authenticate: @escaping Authenticator,
        log: ServerLog, clock: HostClock
    ) throws(ServeError) {
        self.log = log
        self.clock = clock
        self.site = site
        self.blobs = blobs
        self.blobLimits = blobLimits
        self.authenticate = authenticate
        self.storage = storage
        self.metrics = metrics
        limits = configuration.limits
        server = SyncServer(configuration: configuration, authenticate: authenticate)
        LibWebSocketsLog.route(to: log.logger)
        frontDoor = try FrontDoor(host: host, port: port)
        lws = try LWSContext(
            user: Unmanaged.passUnretained(self).toOpaque(), writeBytes: Self.writeBytes)
    }

    deinit {
        // Destroying the context closes what is left: nothing to tell anyone.
        tearingDown = true
        lws = nil
    }

    // MARK: The loop

    /// Services connections until a stop has been asked for and finished.
    func run() {
        guard let lws else { return }
        let refusals = HTTPRefusalLog(logger: log.logger)
        frontDoor.start(
            handOver: { [inbox, weak self] socket in
                if inbox.add(.adopt(socket)) { self?.wake() }
            },
            refused: { refusal, peer in refusals.note(refusal, peer: peer) })
        while !shutdown.isFinished {
            lws.service()
            // Outside any callback: adopting calls callbacks of its own.
            let adopting = arriving
            arriving = []
            for socket in adopting { lws.adopt(socket) }
            // A room hands storage every push the turn read as one append.
            carryOutOutputs(handingOverAppends: true)
            fanout.flushQueued(through: batch)
        }
        frontDoor.stop()
        for case .adopt(let socket) in inbox.drain().items { close(socket) }
        for socket in arriving { close(socket) }
    }

    /// Wakes the service thread; safe from any thread.
    func wake() {
        lws?.wake()
    }

    // MARK: Events

    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, session: UnsafeMutableRawPointer?,
        input: UnsafeMutableRawPointer?, length: Int
    ) -> Int32 {
        // Destroying the context closes what is left: nothing to tell anyone.
        if tearingDown { return 0 }
        switch reason {
        case LWS_CALLBACK_ESTABLISHED:
            guard let session else { return -1 }
            if shutdown.isStopping { return -1 }
            let id = ConnectionID(rawValue: nextConnection)
            nextConnection += 1
            session.storeBytes(of: id.rawValue, as: UInt64.self)
            let name = lws_get_protocol(wsi).flatMap { $0.pointee.name.map { String(cString: $0) } }
            let encoding = name.flatMap(WireEncoding.init(subprotocol:)) ?? .binary
            fanout.add(LiveConnection(id: id, wsi: wsi, encoding: encoding, messageBytes: limits.messageBytes))
            log.connectionOpened(id, peer: peerAddress(wsi), encoding: encoding)
            let path = requestHeader({ easel_lws_header(wsi, easel_lws_token_get_uri, $0, $1) })
            server.open(id, at: clock.now, path: path.flatMap(Self.document(inPath:)))
            if let path { warmDocument(at: path) }
        case LWS_CALLBACK_RECEIVE:
            guard let connection = connection(of: session) else { return -1 }
            receive(input, length, on: connection)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let connection = connection(of: session) else { return -1 }
            return fanout.flush(connection, through: batch)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            guard let connection = connection(of: session) else { return 0 }
            if connection.closeCode == nil, let input, length >= 2 {
                let bytes = input.assumingMemoryBound(to: UInt8.self)
                connection.peerCloseCode = CloseCode(rawValue: UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
            }
            // Our own close frame is out already: close without echoing theirs.
            return connection.closeSent ? -1 : 0
        case LWS_CALLBACK_CLOSED:
            guard let connection = connection(of: session) else { return 0 }
            fanout.remove(connection.id)
            let ours = connection.closeCode != nil
            log.connectionClosed(
                connection.id, code: connection.closeCode ?? connection.peerCloseCode, by: ours ? "server" : "peer",
                document: connection.document, role: connection.role)
            server.close(connection.id, at: clock.now)
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            serviceInbox()
        case LWS_CALLBACK_HTTP:
            return answerHTTP(wsi, path: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "")
        case LWS_CALLBACK_HTTP_BODY:
            return http.receiveBody(UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length), on: wsi)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            return http.endOfBody(on: wsi)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return http.writeNext(on: wsi)
        case LWS_CALLBACK_CLOSED_HTTP:
            http.closed(wsi)
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, session, input, length)
        }
        // The rest as it comes: held to the turn's end, a crowd's joins
        // held every welcome and presence fan-out of the turn at once.
        carryOutOutputs(handingOverAppends: false)
        return 0
    }

    private func connection(of session: UnsafeMutableRawPointer?) -> LiveConnection? {
        guard let session else { return nil }
        return connections[ConnectionID(rawValue: session.load(as: UInt64.self))]
    }

    private func receive(_ input: UnsafeMutableRawPointer?, _ length: Int, on connection: LiveConnection) {
        guard connection.closeCode == nil else { return }
        let isBinary = easel_lws_is_binary(connection.wsi) != 0
        guard isBinary == (connection.encoding == .binary) else {
            return connection.close(.wrongFrameKind)
        }
        let piece = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        let bytes: [UInt8]
        switch connection.incoming.add(piece, isLast: easel_lws_message_is_complete(connection.wsi) != 0) {
        case .incomplete:
            return
        case .tooLarge:
            send(
                .error(
                    ErrorMessage(
                        code: .tooLarge, fatal: true,
                        message: "a message has at most \(limits.messageBytes) bytes on this server")),
                to: [connection.id])
            return connection.close(.messageTooBig)
        case .message(let message):
            bytes = message
        }
        do {
            let message = try Message(decoding: bytes, as: connection.encoding)
            if case .push = message { metrics.pushes.increment() }
            let now = clock.now
            leaseGuard?.check(server, at: now)
            server.receive(message, from: connection.id, at: now)
        } catch {
            server.refuse(error, from: connection.id, at: clock.now)
        }
    }

    // MARK: Outputs

    /// A page or socket at `/d/<document>` names its document before its
    /// hello can: the room starts loading now (`SyncServer.warm`).
    func warmDocument(at path: String) {
        guard !shutdown.isStopping, let document = Self.document(inPath: path) else { return }
        server.warm(document, at: clock.now)
    }

    /// The document a path names: `/d/<document>`.
    static func document(inPath path: String) -> DocumentName? {
        guard path.hasPrefix("/d/") else { return nil }
        return try? DocumentName(String(path.dropFirst(3)))
    }

    func carryOutOutputs(handingOverAppends: Bool = true) {
        // Events first: a joiner's document is known before its welcome goes.
        for event in server.takeEvents() {
            log.event(event)
            switch event {
            case .joining(let id, let document, _, let role):
                connections[id]?.document = document
                connections[id]?.role = role
            case .roomUnloaded(let document, _):
                fanout.forgetWelcome(of: document)
                memoryReturn.roomUnloaded()
            default:
                break
            }
        }
        // The buffer goes back to `spareOutputs` after: one allocation for
        // the life of the server, not one a callback.
        var outputs: [ServerOutput] = []
        swap(&outputs, &spareOutputs)
        defer {
            outputs.removeAll(keepingCapacity: true)
            swap(&outputs, &spareOutputs)
        }
        server.takeOutputs(into: &outputs, handingOverAppends: handingOverAppends)
        for output in outputs {
            switch output {
            case .send(let message, let recipients):
                send(message, to: recipients)
            case .close(let id, let code):
                connections[id]?.close(code)
            case .load, .warm, .append, .unloaded:
                store(output)
            }
        }
    }

    /// The peer's address, for the log.
    private func peerAddress(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard let name = lws_get_peer_simple(wsi, &buffer, buffer.count) else { return "unknown" }
        return String(cString: name)
    }

    /// Counts and logs the errors among messages, then hands them to the
    /// fan-out.
    func send(_ message: Message, to recipients: [ConnectionID]) {
        if case .error(let error) = message {
            for recipient in recipients {
                metrics.countError(error.code)
                log.refused(recipient, error.code, at: clock.now)
            }
        }
        fanout.send(message, to: recipients, at: clock.now)
    }

    // MARK: Other threads

    /// What other threads handed over, the tick, and the stop sequence.
    private func serviceInbox() {
        let (items, stop) = inbox.drain()
        let now = clock.now
        leaseGuard?.check(server, at: now)
        for item in items {
            switch item {
            case .storage(let completion): (leaseGuard?.vetted(completion) ?? completion).deliver(to: server, at: now)
            case .encoded(let number, let frames): fanout.encoded(number, frames, at: now)
            case .blob(let number, let answer): http.storageAnswered(answer, for: number)
            case .adopt(let socket): arriving.append(socket)
            }
        }
        if now.milliseconds(since: lastTick) >= 50 || now < lastTick {
            lastTick = now
            leaseGuard?.check(server, at: now)
            server.tick(at: now)
            fanout.closeLateWelcomes(at: now)
            memoryReturn.trimIfDue(at: now)
            log.summarise(at: now)
        }
        if stop { stopServing(at: now) }
        closeEveryoneIfDue(at: now)
        shutdown.note(openConnections: connections.count, at: now)
    }
}

/// Why the server could not start or keep serving.
public struct ServeError: Error, CustomStringConvertible, Sendable {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
