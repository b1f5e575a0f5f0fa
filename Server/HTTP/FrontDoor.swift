import CLibWebSockets
import EaselHTTP
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The listening socket, and each new connection until its first request's
/// head has arrived whole and passed `RequestHead`; the connection then goes
/// to the service thread, with the bytes read so far, for libwebsockets to
/// adopt as if it had accepted it. A head that fails gets its status and a
/// plain reason here (400, 408, 414, 431), which lws could not give: it
/// closes such a connection without a word.
///
/// Runs on a thread of its own. A connection waits here at most 10 s for
/// its head; at most `pendingLimit` wait at once, and the rest wait in the
/// kernel's accept queue.
final class FrontDoor: Sendable {
    let port: Int
    private let listener: Int32
    /// Watches the listener and the sockets waiting at the door (epoll).
    private let poller: Int32
    private let stopped = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    static let pendingLimit = 1_000
    static let headSeconds = 10.0
    /// How long a refused connection is read and dropped before it is
    /// closed, so the refusal is not lost to a reset.
    static let drainSeconds = 1.0
    /// The kernel's send buffer for each connection (Linux doubles it for
    /// its own bookkeeping, and caps it at `net.core.wmem_max`, 208 KiB on
    /// a stock kernel: the smaller bound then holds). Left to itself, loopback grows a buffer to
    /// 4 MB: 200 joiners that never read made the kernel copy and hold
    /// hundreds of megabytes, the service thread spent half its time in
    /// `send`, and every other document's acks waited (Docs/RELIABILITY.md).
    /// Bounded, a connection that stops reading fills it and then its own
    /// queue, which `--max-queued-bytes` bounds. 256 KiB still streams
    /// 2.5 MB a second over a 100 ms round trip.
    static let sendBufferBytes: Int32 = 256 << 10

    /// Listens at once, so a port in use is an error before anything runs.
    init(host: String, port: Int) throws(ServeError) {
        (listener, self.port) = try Self.listen(host: host, port: port)
        poller = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard poller >= 0 else {
            close(listener)
            throw ServeError("cannot watch sockets (epoll_create1 failed with errno \(errno))")
        }
        _ = easel_epoll_watch(poller, EPOLL_CTL_ADD, listener, 0)
    }

    deinit {
        close(poller)
        close(listener)
    }

    private static func listen(host: String, port: Int) throws(ServeError) -> (Int32, Int) {
        let failure = ServeError("cannot listen on \(host):\(port) (is the port in use?)")
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else { throw failure }
        defer { freeaddrinfo(found) }
        let socket = Glibc.socket(
            address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw failure }
        var on: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0, Glibc.listen(socket, 512) == 0
        else {
            close(socket)
            throw failure
        }
        // Accepting until the queue is empty must end in EAGAIN, not a wait.
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard named == 0 else {
            close(socket)
            throw failure
        }
        // sin_port and sin6_port both follow the two-byte family.
        let networkPort = withUnsafeBytes(of: bound) { $0.load(fromByteOffset: 2, as: UInt16.self) }
        return (socket, Int(UInt16(bigEndian: networkPort)))
    }

    /// Runs the front door on a thread of its own until `stop`.
    func start(
        handOver: @escaping @Sendable (_ socket: Int32) -> Void,
        refused: @escaping @Sendable (_ refusal: RequestHead.Refusal, _ peer: String) -> Void
    ) {
        let thread = Thread { [self] in
            run(handOver: handOver, refused: refused)
            ended.signal()
        }
        thread.name = "easel-front-door"
        started.store(true, ordering: .relaxed)
        thread.start()
    }

    /// Ends a started front door and waits for its thread; what is still
    /// waiting at the door is closed.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        if started.load(ordering: .relaxed) { ended.wait() }
    }

    /// A connection that has not handed its head over yet.
    private struct Waiting {
        /// Bytes of its head seen so far (peeked: they stay in the socket).
        var peeked = 0
        var deadline: Double
        /// Refused: what it still sends is read and dropped until then.
        var draining = false
    }

    /// Accepts and reads until `stop`: a head that passes goes to
    /// `handOver` with its socket (which `handOver` then owns); a refusal is
    /// told to `refused`, for the log.
    ///
    /// A head is only peeked at, never taken from the socket, so lws reads
    /// the connection from its first byte as if it had accepted it. So a
    /// socket holding part of a head stays readable, and is watched
    /// edge-triggered: looked at again when more arrives, not on every
    /// turn. (Looked at every 20 ms, 300 slow handshakes cost the server a
    /// third of a core in `recv`.)
    func run(
        handOver: (_ socket: Int32) -> Void,
        refused: (_ refusal: RequestHead.Refusal, _ peer: String) -> Void
    ) {
        var waiting: [Int32: Waiting] = [:]
        var readySockets = [Int32](repeating: 0, count: 256)
        var readyEvents = [UInt32](repeating: 0, count: 256)
        var buffer = [UInt8](repeating: 0, count: RequestHead.headLimit + 1)
        var listening = false
        while !stopped.load(ordering: .relaxed) {
            // Past the limit the rest wait in the kernel's accept queue.
            if listening != (waiting.count < Self.pendingLimit) {
                listening.toggle()
                watch(listener, listening ? EPOLLIN.rawValue : 0, change: EPOLL_CTL_MOD)
            }
            let ready = Int(easel_epoll_wait(poller, &readySockets, &readyEvents, Int32(readySockets.count), 200))
            let now = Self.seconds()
            for index in 0..<max(ready, 0) {
                let socket = readySockets[index]
                if socket == listener {
                    acceptAll(into: &waiting, at: now)
                    continue
                }
                guard let connection = waiting[socket] else { continue }
                let hungUp = readyEvents[index] & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
                if connection.draining {
                    // Read to the end even when the client has hung up: a
                    // socket closed with bytes unread ends in a reset, not
                    // a close, which some clients take as a lost answer.
                    if !drain(socket, into: &buffer) { forget(socket, in: &waiting) }
                    continue
                }
                let count = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT | MSG_PEEK))
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
                    forget(socket, in: &waiting)
                    continue
                }
                if count <= connection.peeked {
                    // Nothing new, and nothing more can come.
                    if hungUp { forget(socket, in: &waiting) }
                    continue
                }
                switch RequestHead.check(buffer[..<count]) {
                case .incomplete:
                    waiting[socket]?.peeked = count
                    if hungUp { forget(socket, in: &waiting) }
                case .complete:
                    waiting[socket] = nil
                    watch(socket, 0, change: EPOLL_CTL_DEL)
                    handOver(socket)
                case .refused(let refusal):
                    refused(refusal, Self.peer(of: socket))
                    refuse(socket, refusal, at: now, in: &waiting, through: &buffer)
                }
            }
            for (socket, connection) in waiting where now > connection.deadline {
                if connection.draining {
                    forget(socket, in: &waiting)
                } else {
                    refused(.tooSlow, Self.peer(of: socket))
                    refuse(socket, .tooSlow, at: now, in: &waiting, through: &buffer)
                }
            }
        }
        for socket in waiting.keys { close(socket) }
    }

    /// Adds, changes or removes a socket in the poller; `events` holds the
    /// `EPOLL…` bits.
    private func watch(_ socket: Int32, _ events: UInt32, change: Int32) {
        _ = easel_epoll_watch(poller, change, socket, events)
    }

    /// Closes a waiting socket (which takes it out of the poller).
    private func forget(_ socket: Int32, in waiting: inout [Int32: Waiting]) {
        close(socket)
        waiting[socket] = nil
    }

    /// Answers a refused head and starts draining the connection: what it
    /// sent (the head, only peeked at so far) is read now, since no new
    /// edge comes for bytes already there.
    private func refuse(
        _ socket: Int32, _ refusal: RequestHead.Refusal, at now: Double, in waiting: inout [Int32: Waiting],
        through buffer: inout [UInt8]
    ) {
        waiting[socket] = refuse(socket, refusal, at: now)
        if !drain(socket, into: &buffer) { forget(socket, in: &waiting) }
    }

    /// Reads and drops what a refused connection sent, to the end of what
    /// is there (edge-triggered, nothing else would say more is waiting),
    /// but at most `drainReadsPerTurn` reads, so one that keeps sending
    /// cannot hold the door; false once it has closed.
    private func drain(_ socket: Int32, into buffer: inout [UInt8]) -> Bool {
        for _ in 0..<Self.drainReadsPerTurn {
            let count = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { continue }
            return count < 0 && (errno == EAGAIN || errno == EINTR)
        }
        return true
    }

    static let drainReadsPerTurn = 8

    private func acceptAll(into waiting: inout [Int32: Waiting], at now: Double) {
        while waiting.count < Self.pendingLimit {
            let socket = accept(listener, nil, nil)
            guard socket >= 0 else { return }
            _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
            _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
            // What lws does to a socket it accepts itself, and not to one it
            // adopts: without it, Nagle's algorithm holds small frames back
            // (acks took 7 ms at the median instead of 1.5 in `easel bench
            // serve`).
            var on: Int32 = 1
            _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            var sendBuffer = Self.sendBufferBytes
            _ = setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
            waiting[socket] = Waiting(deadline: now + Self.headSeconds)
            // Bytes already there count as an edge: the first event comes.
            watch(socket, EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue, change: EPOLL_CTL_ADD)
        }
    }

    /// Writes the refusal, ends the sending side, and reads what follows
    /// for a moment, so the client reads the answer instead of a reset.
    private func refuse(_ socket: Int32, _ refusal: RequestHead.Refusal, at now: Double) -> Waiting {
        let body = refusal.reason + "\n"
        let answer =
            "HTTP/1.1 \(refusal.status) \(Self.phrase(refusal.status))\r\ncontent-type: text/plain; charset=utf-8\r\n"
            + "content-length: \(body.utf8.count)\r\nconnection: close\r\nx-content-type-options: nosniff\r\n\r\n"
            + body
        _ = Array(answer.utf8).withUnsafeBytes {
            send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        shutdown(socket, Int32(SHUT_WR))
        return Waiting(deadline: now + Self.drainSeconds, draining: true)
    }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 408: "Request Timeout"
        case 414: "URI Too Long"
        case 431: "Request Header Fields Too Large"
        default: "Bad Request"
        }
    }

    private static func peer(of socket: Int32) -> String {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &length) }
        }
        guard found == 0 else { return "unknown" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = Int32(address.ss_family)
        let named = withUnsafePointer(to: &address) { pointer -> Bool in
            if family == AF_INET {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                    var sin = inet.pointee.sin_addr
                    return inet_ntop(AF_INET, &sin, &text, socklen_t(text.count)) != nil
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet in
                var sin6 = inet.pointee.sin6_addr
                return inet_ntop(AF_INET6, &sin6, &text, socklen_t(text.count)) != nil
            }
        }
        return named
            ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
    }

    private static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
