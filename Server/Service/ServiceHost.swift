import CLibWebSockets
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
    private let server: SyncServer
    private let storage: any RoomStorage
    private let metrics: ServerMetrics
    private let limits: ServerLimits
    /// What the operator reads (ServerLog.swift).
    var log: ServerLog
    /// The time every event is stamped with.
    let clock: HostClock
    /// Whether the last storage answer was a failure, so the first success
    /// after one is logged as a recovery. Storage answers on its own thread.
    private let storageHealth = StorageHealth()
    /// A commit slower than this is logged.
    static let slowCommit: Duration = .milliseconds(250)
    /// The web canvas's files; nil when the server runs without a page.
    private let site: WebSite?
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
    /// Blobs over HTTP (ServiceHost+Blobs.swift): the blob thread, limits,
    /// the authenticator hellos use too, and the exchanges in progress.
    let blobs: BlobWorker
    let blobLimits: BlobLimits
    let authenticate: Authenticator
    var exchanges: [OpaquePointer: BlobExchange] = [:]
    var exchangesByNumber: [UInt64: BlobExchange] = [:]
    var nextExchange: UInt64 = 1
    private var context: OpaquePointer?
    private var vhost: OpaquePointer?
    /// Accepts connections and checks each first request's head.
    private let frontDoor: FrontDoor
    private let frontDoorDone = DispatchSemaphore(value: 0)
    /// Connections handed over, adopted once the current service call ends.
    private var arriving: [Int32] = []
    private var connections: [ConnectionID: LiveConnection] { fanout.connections }
    private var nextConnection: UInt64 = 1
    private var lastTick = Timestamp(milliseconds: 0)
    private var stopping: Timestamp?
    private var finished = false
    private var tearingDown = false
    /// C memory lws keeps pointers into for the context's lifetime.
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private var protocols: UnsafeMutablePointer<lws_protocols>?
    private var vhostOptions: UnsafeMutablePointer<lws_protocol_vhost_options>?

    /// The port the server listens on (the one asked for, or the one the
    /// system chose for port 0).
    var port: Int { frontDoor.port }

    init(
        host: String, port: Int, storage: any RoomStorage, metrics: ServerMetrics, configuration: ServerConfiguration,
        site: WebSite?, blobs: BlobWorker, blobLimits: BlobLimits, authenticate: @escaping Authenticator,
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
        try createContext()
    }

    deinit {
        tearingDown = true
        if let context { lws_context_destroy(context) }
        protocols?.deallocate()
        vhostOptions?.deallocate()
        for string in cStrings { free(string) }
    }

    private func cString(_ string: String) -> UnsafeMutablePointer<CChar>? {
        let copy = strdup(string)
        if let copy { cStrings.append(copy) }
        return copy
    }

    private func createContext() throws(ServeError) {
        // protocols[0] takes plain HTTP; the collaboration protocol is the
        // vhost default, so a client naming no subprotocol still gets it.
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 4)
        protocols.initialize(repeating: lws_protocols(), count: 4)
        let session = MemoryLayout<UInt64>.size
        protocols[0].name = UnsafePointer(cString("http"))
        protocols[0].callback = easelServiceCallback
        protocols[1].name = UnsafePointer(cString(WireProtocol.binarySubprotocol))
        protocols[1].callback = easelServiceCallback
        protocols[1].per_session_data_size = session
        protocols[1].rx_buffer_size = 4096
        protocols[1].tx_packet_size = Self.writeBytes
        protocols[2].name = UnsafePointer(cString(WireProtocol.jsonSubprotocol))
        protocols[2].callback = easelServiceCallback
        protocols[2].per_session_data_size = session
        protocols[2].rx_buffer_size = 4096
        protocols[2].tx_packet_size = Self.writeBytes
        self.protocols = protocols

        let options = UnsafeMutablePointer<lws_protocol_vhost_options>.allocate(capacity: 2)
        options.initialize(repeating: lws_protocol_vhost_options(), count: 2)
        options[1].name = UnsafePointer(cString("default"))
        options[1].value = UnsafePointer(cString("1"))
        options[0].name = UnsafePointer(cString(WireProtocol.binarySubprotocol))
        options[0].value = UnsafePointer(cString(""))
        options[0].options = UnsafePointer(options + 1)
        vhostOptions = options

        var info = lws_context_creation_info()
        // The front door listens and hands connections over.
        info.port = Int32(easel_lws_no_listen)
        // Room for any head the front door lets through.
        info.max_http_header_data2 = UInt32(RequestHead.headLimit + 4096)
        info.protocols = UnsafePointer(protocols)
        info.pvo = UnsafePointer(options)
        info.vhost_name = UnsafePointer(cString("easel"))
        info.options = easel_lws_server_options
        info.user = Unmanaged.passUnretained(self).toOpaque()
        guard let context = lws_create_context(&info), let vhost = lws_get_vhost_by_name(context, "easel") else {
            throw ServeError("cannot start libwebsockets")
        }
        self.context = context
        self.vhost = vhost
    }

    // MARK: The loop

    /// Services connections until a stop has been asked for and finished.
    func run() {
        guard let context else { return }
        let door = Thread { [self, inbox, logger = log.logger] in
            let refusals = HTTPRefusalLog(logger: logger)
            frontDoor.run(
                handOver: { socket in
                    if inbox.add(.adopt(socket)) { wake() }
                },
                refused: { refusal, peer in refusals.note(refusal, peer: peer) })
            frontDoorDone.signal()
        }
        door.name = "easel-front-door"
        door.start()
        while !finished {
            _ = lws_service(context, 0)
            // Outside any callback: adopting services the connection at once,
            // and lws does not expect that from inside one of its callbacks.
            let adopting = arriving
            arriving = []
            for socket in adopting { adopt(socket) }
        }
        frontDoor.stop()
        frontDoorDone.wait()
        for case .adopt(let socket) in inbox.drain().items { close(socket) }
        for socket in arriving { close(socket) }
    }

    /// Wakes the service thread; safe from any thread.
    func wake() {
        if let context { lws_cancel_service(context) }
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
            if stopping != nil { return -1 }
            let id = ConnectionID(rawValue: nextConnection)
            nextConnection += 1
            session.storeBytes(of: id.rawValue, as: UInt64.self)
            let name = lws_get_protocol(wsi).flatMap { $0.pointee.name.map { String(cString: $0) } }
            let encoding = name.flatMap(WireEncoding.init(subprotocol:)) ?? .binary
            fanout.add(LiveConnection(id: id, wsi: wsi, encoding: encoding, messageBytes: limits.messageBytes))
            log.connectionOpened(id, peer: peerAddress(wsi), encoding: encoding)
            server.open(id, at: clock.now)
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
            let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
            switch HTTPRoute(path: path) {
            case .blob: return startBlobExchange(wsi, path: path)
            case .health: return answerWhole(wsi, healthAnswer)
            case .metrics: return answerWhole(wsi, metricsAnswer)
            case .site: return answerWhole(wsi, siteAnswer(wsi, path: path))
            }
        case LWS_CALLBACK_HTTP_BODY:
            guard let exchange = exchanges[wsi] else { return -1 }
            return receiveBody(UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length), of: exchange)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            guard let exchange = exchanges[wsi] else { return -1 }
            endOfBody(exchange)
            return 0
        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let exchange = exchanges[wsi] else { return -1 }
            return writeNextPart(of: exchange)
        case LWS_CALLBACK_CLOSED_HTTP:
            if let exchange = exchanges[wsi] { endExchange(exchange) }
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, session, input, length)
        }
        carryOutOutputs()
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
            server.receive(message, from: connection.id, at: clock.now)
        } catch {
            server.refuse(error, from: connection.id, at: clock.now)
        }
    }

    // MARK: Outputs

    private func carryOutOutputs() {
        // Events first: a joiner's document is known before its welcome goes.
        for event in server.takeEvents() {
            log.event(event)
            switch event {
            case .joining(let id, let document, _, let role):
                connections[id]?.document = document
                connections[id]?.role = role
            case .roomUnloaded(let document, _):
                fanout.forgetWelcome(of: document)
            default:
                break
            }
        }
        for output in server.takeOutputs() {
            switch output {
            case .send(let message, let recipients):
                send(message, to: recipients)
            case .close(let id, let code):
                connections[id]?.close(code)
            case .load, .append, .unloaded:
                let started = ContinuousClock.now
                _ = storage.perform(output) { [inbox, metrics, logger = log.logger, storageHealth, weak self] completion in
                    var completion = completion
                    if case .stored(_, .success, let ops) = completion {
                        let took = ContinuousClock.now - started
                        metrics.commitLatency.record(took)
                        metrics.opsCommitted.increment(by: Int64(ops))
                        if took > Self.slowCommit {
                            logger.warning(
                                "slow commit", metadata: ["ops": "\(ops)", "ms": "\(took.wholeMilliseconds)"])
                        }
                    }
                    storageHealth.note(&completion, logger: logger)
                    if inbox.add(.storage(completion)) { self?.wake() }
                }
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
    private func send(_ message: Message, to recipients: [ConnectionID]) {
        if case .error(let error) = message {
            for recipient in recipients {
                metrics.countError(error.code)
                log.refused(recipient, error.code, at: clock.now)
            }
        }
        fanout.send(message, to: recipients, at: clock.now)
    }

    /// A connection the front door accepted: lws takes it as its own.
    private func adopt(_ socket: Int32) {
        guard let vhost, !finished else {
            close(socket)
            return
        }
        // lws owns the socket now, even when it failed to take it on.
        _ = easel_lws_adopt(vhost, socket)
    }

    // MARK: HTTP on the same port

    /// 200 while serving, 503 once a stop began.
    private var healthAnswer: HTTPResponse {
        .text(stopping == nil ? 200 : 503, stopping == nil ? "serving\n" : "stopping\n")
    }

    private var metricsAnswer: HTTPResponse {
        HTTPResponse(
            status: 200, contentType: "text/plain; version=0.0.4",
            body: metrics.exposition(
                connections: connections.count, rooms: server.openDocuments.count, storage: storage.metrics))
    }

    /// The web canvas's pages and files (`WebSite`), or 404.
    private func siteAnswer(_ wsi: OpaquePointer, path: String) -> HTTPResponse {
        site?.response(for: path, ifNoneMatch: header(wsi) { easel_lws_if_none_match(wsi, $0, $1) })
            ?? .text(404, "no such page: Easel serves WebSockets, /healthz, /metrics and its web canvas\n")
    }

    // MARK: Other threads

    /// Storage answers, the tick, and the stop sequence: close everyone with
    /// 1001, give the close frames a moment, then end the loop.
    private func serviceInbox() {
        let (items, stop) = inbox.drain()
        let now = clock.now
        for item in items {
            switch item {
            case .storage(let completion): completion.deliver(to: server, at: now)
            case .encoded(let number, let frames): fanout.encoded(number, frames)
            case .blob(let number, let event): blobEvent(event, for: number)
            case .adopt(let socket): arriving.append(socket)
            }
        }
        if now.milliseconds(since: lastTick) >= 50 || now < lastTick {
            lastTick = now
            server.tick(at: now)
            fanout.closeLateWelcomes(at: now)
            log.summarise(at: now)
        }
        if stop, stopping == nil {
            stopping = now
            log.logger.info("stopping: closing every connection", metadata: ["connections": "\(connections.count)"])
            for connection in connections.values {
                send(
                    .error(ErrorMessage(code: .shuttingDown, fatal: true, message: "the server is shutting down")),
                    to: [connection.id])
                connection.close(.goingAway)
            }
        }
        if let stopping, connections.isEmpty || now.milliseconds(since: stopping) > 2_000 {
            finished = true
        }
    }
}

/// Why the server could not start or keep serving.
public struct ServeError: Error, CustomStringConvertible, Sendable {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
