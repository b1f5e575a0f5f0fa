import CLibWebSockets
import EaselProtocol
import EaselSync

/// The ceiling `easel bench serve` measures the server against: libwebsockets
/// relaying every message to every other connection, with the server's
/// batched writes and nothing else — no decoding, no rooms, no storage.
/// It speaks any subprotocol (it is the vhost default) and never closes
/// anyone; it serves until the process ends.
/// Unchecked: everything is touched on its service thread only.
public final class BareRelay: @unchecked Sendable {
    private var context: OpaquePointer?
    private var connections: [UInt64: LiveConnection] = [:]
    private var nextConnection: UInt64 = 1
    private let batch = FrameBatch(capacity: ServiceHost.writeBytes)
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let names: [UnsafeMutablePointer<CChar>]
    private let vhostOptions: UnsafeMutablePointer<lws_protocol_vhost_options>

    public private(set) var port = 0

    public init(port: Int) throws(ServeError) {
        easel_lws_quiet_logs()
        let texts = ["relay", "default", "1", "", "127.0.0.1"]
        names = texts.compactMap { text in strdup(text) }
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(names[0])
        protocols[0].callback = bareRelayCallback
        protocols[0].per_session_data_size = MemoryLayout<UInt64>.size
        protocols[0].rx_buffer_size = 4096
        protocols[0].tx_packet_size = ServiceHost.writeBytes
        vhostOptions = .allocate(capacity: 2)
        vhostOptions.initialize(repeating: lws_protocol_vhost_options(), count: 2)
        vhostOptions[1].name = UnsafePointer(names[1])
        vhostOptions[1].value = UnsafePointer(names[2])
        vhostOptions[0].name = UnsafePointer(names[0])
        vhostOptions[0].value = UnsafePointer(names[3])
        vhostOptions[0].options = UnsafePointer(vhostOptions + 1)

        var info = lws_context_creation_info()
        info.port = Int32(port)
        info.iface = UnsafePointer(names[4])
        info.protocols = UnsafePointer(protocols)
        info.pvo = UnsafePointer(vhostOptions)
        info.options = easel_lws_server_options
        info.user = Unmanaged.passUnretained(self).toOpaque()
        guard let context = lws_create_context(&info) else {
            throw ServeError("the relay cannot listen on 127.0.0.1:\(port)")
        }
        self.context = context
        if let vhost = lws_get_vhost_by_name(context, "default") {
            self.port = Int(lws_get_vhost_listen_port(vhost))
        }
    }

    deinit {
        if let context { lws_context_destroy(context) }
        protocols.deallocate()
        vhostOptions.deallocate()
        for name in names { free(name) }
    }

    /// Relays until the process ends.
    public func run() -> Never {
        while true {
            if let context { _ = lws_service(context, 0) }
        }
    }

    fileprivate func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, session: UnsafeMutableRawPointer?,
        input: UnsafeMutableRawPointer?, length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_ESTABLISHED:
            guard let session else { return -1 }
            let id = nextConnection
            nextConnection += 1
            session.storeBytes(of: id, as: UInt64.self)
            connections[id] = LiveConnection(
                id: ConnectionID(rawValue: id), wsi: wsi, encoding: .binary, messageBytes: .max)
        case LWS_CALLBACK_RECEIVE:
            guard let session, let sender = connections[session.load(as: UInt64.self)] else { return -1 }
            let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
            guard case .message(let bytes) = sender.incoming.add(chunk, isLast: easel_lws_message_is_complete(wsi) != 0)
            else { return 0 }
            let frame = OutFrame(bytes)
            for connection in connections.values where connection !== sender {
                let wasEmpty = connection.outgoing.isEmpty
                connection.outgoing.append(frame)
                if wasEmpty { connection.wantsToWrite() }
            }
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let session, let connection = connections[session.load(as: UInt64.self)] else { return -1 }
            return connection.flush(through: batch)
        case LWS_CALLBACK_CLOSED:
            if let session { connections[session.load(as: UInt64.self)] = nil }
        default:
            return lws_callback_http_dummy(wsi, reason, session, input, length)
        }
        return 0
    }
}

private func bareRelayCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let relay = lws_context_user(context) else { return 0 }
    return Unmanaged<BareRelay>.fromOpaque(relay).takeUnretainedValue()
        .handle(wsi, reason, session: user, input: input, length: length)
}
