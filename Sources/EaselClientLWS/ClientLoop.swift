import CLibWebSockets
import EaselClient
import Foundation

/// One libwebsockets client context and its service thread, shared by any
/// number of connections (many bots in one process share one loop).
///
/// Only the service thread calls into lws, except `lws_cancel_service`;
/// transports queue their requests here and wake the loop.
///
/// Call `shutdown()` when done: the thread holds the loop until then. Never
/// call it from a transport's delegate (it waits for the loop's thread).
/// Unchecked: the lws context lives on the loop's thread; what others hand it is behind a lock.
public final class ClientLoop: @unchecked Sendable {
    private var context: OpaquePointer?
    private var protocols: UnsafeMutablePointer<lws_protocols>?
    private var protocolName: UnsafeMutablePointer<CChar>?
    private let lock = NSLock()
    // Under `lock`:
    private var connectRequests: [LWSTransport] = []
    private var writableRequests: Set<UInt64> = []
    private var stopRequested = false
    /// Set before the context is destroyed: nobody may wake it after.
    private var destroyed = false
    // Service thread only:
    private var closingAll = false
    private var transports: [UInt64: LWSTransport] = [:]
    private var nextID: UInt64 = 1
    private let stopped = DispatchSemaphore(value: 0)

    /// How long a connection may take to open before it is given up.
    public static let openingTimeoutSeconds: UInt32 = 10
    /// How long a close may wait for its frame to go out.
    static let closingTimeoutSeconds: Int32 = 5

    public init() throws {
        easel_lws_quiet_logs()
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocolName = strdup("easel-client")
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = easelClientCallback
        protocols[0].rx_buffer_size = 4096
        self.protocols = protocols
        var info = lws_context_creation_info()
        info.port = easel_lws_no_listen
        info.protocols = UnsafePointer(protocols)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        // A connection that has not opened within this long (its connect, or
        // the answer to its upgrade, lost on a half-open link) is given up,
        // so its session retries; lws's own default is 20 s.
        info.timeout_secs = ClientLoop.openingTimeoutSeconds
        guard let context = lws_create_context(&info) else {
            protocols.deallocate()
            free(protocolName)
            throw TransportError("cannot create a libwebsockets client context")
        }
        self.context = context
        let thread = Thread { [self] in self.service() }
        thread.name = "easel-client-loop"
        thread.start()
    }

    private func service() {
        guard let context else { return }
        var stopDeadline: ContinuousClock.Instant?
        while true {
            if lock.withLock({ stopRequested }) {
                // Connections get a moment to close cleanly, not forever.
                let deadline = stopDeadline ?? ContinuousClock.now + .seconds(2)
                stopDeadline = deadline
                if transports.isEmpty || ContinuousClock.now > deadline { break }
            }
            _ = lws_service(context, 0)
        }
        stopped.signal()
    }

    /// Closes every connection, stops the thread and frees the context.
    public func shutdown() {
        let first = lock.withLock {
            defer { stopRequested = true }
            return !stopRequested
        }
        guard first, let context else { return }
        lock.withLock { wakeLocked() }
        stopped.wait()
        lock.withLock { destroyed = true }
        lws_context_destroy(context)
        protocols?.deallocate()
        free(protocolName)
    }

    deinit {
        shutdown()
    }

    /// A new connection to `address`, asking for `subprotocol`.
    public func transport(to address: WebSocketAddress, subprotocol: String) -> any WebSocketTransport {
        LWSTransport(loop: self, address: address, subprotocol: subprotocol)
    }

    // MARK: Requests from any thread

    func requestConnect(_ transport: LWSTransport) {
        let accepted = lock.withLock { () -> Bool in
            guard !stopRequested else { return false }
            connectRequests.append(transport)
            wakeLocked()
            return true
        }
        // A loop that is shutting down connects nobody: say so at once.
        if !accepted { transport.closed() }
    }

    func requestWritable(_ id: UInt64) {
        lock.withLock {
            writableRequests.insert(id)
            wakeLocked()
        }
    }

    /// Wakes the service thread; with the lock held, so the context cannot
    /// be destroyed meanwhile.
    private func wakeLocked() {
        if !destroyed, let context { lws_cancel_service(context) }
    }

    // MARK: The service thread

    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, input: UnsafeMutableRawPointer?, length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            serviceRequests()
            return 0
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            guard let transport = transport(of: wsi) else { return -1 }
            transport.opened(wsi)
            return 0
        case LWS_CALLBACK_CLIENT_RECEIVE:
            guard let transport = transport(of: wsi) else { return -1 }
            return transport.received(input, length, complete: easel_lws_message_is_complete(wsi) != 0) ? 0 : -1
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            guard let transport = transport(of: wsi) else { return -1 }
            return transport.writable()
        // A connection that ends while its upgrade is still being answered
        // is in the HTTP role: lws reports CLOSED_CLIENT_HTTP then, not a
        // connection error (a cut mid-upgrade; the opening timeout). And
        // every connection's end passes WSI_DESTROY: whichever comes first
        // tells the transport, once.
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR, LWS_CALLBACK_CLIENT_CLOSED, LWS_CALLBACK_CLOSED_CLIENT_HTTP,
            LWS_CALLBACK_WSI_DESTROY:
            guard let id = id(of: wsi), let transport = transports.removeValue(forKey: id) else { return 0 }
            transport.closed()
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, nil, input, length)
        }
    }

    private func id(of wsi: OpaquePointer) -> UInt64? {
        lws_get_opaque_user_data(wsi).map { UInt64(UInt(bitPattern: $0)) }
    }

    private func transport(of wsi: OpaquePointer) -> LWSTransport? {
        id(of: wsi).flatMap { transports[$0] }
    }

    private func serviceRequests() {
        let (connects, writables, stopping) = lock.withLock {
            defer {
                connectRequests.removeAll()
                writableRequests.removeAll()
            }
            return (connectRequests, writableRequests, stopRequested)
        }
        for transport in connects {
            if stopping {
                transport.closed()
                continue
            }
            let id = nextID
            nextID += 1
            transports[id] = transport
            transport.id = id
            let wsi = transport.address.host.withCString { host in
                transport.address.path.withCString { path in
                    transport.subprotocol.withCString { subprotocol in
                        easel_lws_connect(
                            context, host, Int32(transport.address.port), path, subprotocol,
                            UnsafeMutableRawPointer(bitPattern: UInt(id)))
                    }
                }
            }
            if wsi == nil, transports.removeValue(forKey: id) != nil { transport.closed() }
        }
        for id in writables {
            guard let transport = transports[id], let wsi = transport.wsi else { continue }
            // The close frame goes out when the socket is writable, which it
            // never is again on a link whose far end stopped reading (a
            // half-open connection): past the deadline lws drops it anyway.
            if transport.takeCloseDeadline() { easel_lws_close_within(wsi, Self.closingTimeoutSeconds) }
            lws_callback_on_writable(wsi)
        }
        if stopping, !closingAll {
            closingAll = true
            for transport in transports.values { transport.closeFromLoop() }
        }
    }
}

/// The callback lws calls for client connections; it finds the loop through
/// the context's user pointer.
func easelClientCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let loop = lws_context_user(context) else { return 0 }
    return Unmanaged<ClientLoop>.fromOpaque(loop).takeUnretainedValue().handle(
        wsi, reason, input: input, length: length)
}
