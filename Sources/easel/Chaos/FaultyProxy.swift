import EaselLocking
import EaselModel
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on loopback between clients and a server that makes the
/// network misbehave, the way phones on trains do: every chunk it forwards
/// waits a delay plus jitter; some stall for 0.2–1 s (a lost segment's
/// retransmission); some connections are cut mid-frame (half a chunk goes
/// through, then both sides are closed); some hang half-open (nothing more
/// goes through either way, and neither side is closed, so only a
/// timeout can tell). Two threads a connection, blocking I/O: a fault run
/// has a few hundred connections at most.
final class FaultyProxy: Sendable {
    struct Faults: Sendable {
        var delayMilliseconds = 5
        var jitterMilliseconds = 10
        /// Chances a chunk has of each fault.
        var stall = 0.0
        var cut = 0.0
        var hang = 0.0
    }

    struct Counts: Sendable, Codable {
        var connections = 0
        var stalls = 0
        var cuts = 0
        var hangs = 0
        var chunks = 0
        /// Seconds from each hang until the server closed its side.
        var hangsFreedAfter: [Double] = []
    }

    let port: Int
    private let listener: Int32
    private let upstreamPort: Int
    private let faults: Locked<Faults>
    private let tally = Locked(Counts())
    private let hung = Locked<[Link]>([])
    // A lock, not an Atomic: Swift 6.3.1's optimizer crashes on a throwing
    // init of a class that holds an Atomic beside a Locked.
    private let stopped = Locked(false)
    private let seed: UInt64

    init(upstreamPort: Int, faults: Faults, seed: UInt64) throws {
        self.upstreamPort = upstreamPort
        self.faults = Locked(faults)
        self.seed = seed
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = Loopback.address(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 512) == 0 else {
            close(listener)
            throw ChaosError("the proxy cannot listen on 127.0.0.1")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var counts: Counts { tally.withLock { $0 } }

    /// From now on, only the delay and jitter: a network that is slow
    /// but no longer breaks.
    func calm() {
        faults.withLock {
            $0.stall = 0
            $0.cut = 0
            $0.hang = 0
        }
    }

    /// Stops accepting and ends the connections it holds half-open.
    func stop() {
        stopped.withLock { $0 = true }
        for link in hung.withLock({ links in
            defer { links = [] }
            return links
        }) { link.release() }
        close(listener)
    }

    private func acceptLoop() {
        var number: UInt64 = 0
        while !stopped.value {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard Loopback.connect(server, port: upstreamPort) else {
                close(client)
                close(server)
                continue
            }
            for socket in [client, server] {
                var on: Int32 = 1
                setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            }
            number += 1
            tally.withLock { $0.connections += 1 }
            let link = Link(client: client, server: server)
            let connectionSeed = seed ^ number &* 0x9E37_79B9_7F4A_7C15
            Thread.detachNewThread { [self] in pump(link, from: client, to: server, seed: connectionSeed) }
            Thread.detachNewThread { [self] in pump(link, from: server, to: client, seed: ~connectionSeed) }
        }
    }

    /// Forwards one direction until either side closes or a fault ends it.
    private func pump(_ link: Link, from source: Int32, to target: Int32, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        defer { link.finish() }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if let hungAt = link.hungAt {
                // Nothing goes through any more. The server's side is read
                // and dropped, so its only way to tell is its silence
                // timeout: when it closes, that is when it freed the
                // connection.
                guard source == link.server else { return }
                if count > 0 { continue }
                tally.withLock { $0.hangsFreedAfter.append((ContinuousClock.now - hungAt).seconds) }
                return
            }
            guard count > 0, link.isOpen else { return link.end() }
            if link.carriesBlobs == nil, source == link.client {
                link.carriesBlobs =
                    buffer[..<min(count, 16)].starts(with: Array("PUT /blobs/".utf8))
                    || buffer[..<min(count, 16)].starts(with: Array("GET /blobs/".utf8))
            }
            var faults = faults.withLock { $0 }
            // Blob transfers only wait: a hung one would hold its upload for
            // the HTTP client's whole request timeout (60 s), longer than a
            // run settles in. Cutting and hanging them is left to come.
            if link.carriesBlobs == true { (faults.stall, faults.cut, faults.hang) = (0, 0, 0) }
            let jitter =
                faults.jitterMilliseconds > 0 ? Int.random(in: 0...faults.jitterMilliseconds, using: &random) : 0
            usleep(UInt32((faults.delayMilliseconds + jitter) * 1000))
            // Hung meanwhile by the other direction: the server's side drains.
            if link.hungAt != nil {
                guard source == link.server else { return }
                continue
            }
            let roll = Double.random(in: 0..<1, using: &random)
            tally.withLock { $0.chunks += 1 }
            if roll < faults.hang {
                // A link the other direction just ended cannot hang.
                if link.hang() {
                    tally.withLock { $0.hangs += 1 }
                    hung.withLock { $0.append(link) }
                }
                continue
            }
            if roll < faults.hang + faults.cut {
                tally.withLock { $0.cuts += 1 }
                _ = buffer.withUnsafeBytes { send(target, $0.baseAddress, max(1, count / 2), Int32(MSG_NOSIGNAL)) }
                return link.end()
            }
            if roll < faults.hang + faults.cut + faults.stall {
                tally.withLock { $0.stalls += 1 }
                usleep(UInt32(Int.random(in: 200...1000, using: &random) * 1000))
            }
            if link.hungAt != nil {
                guard source == link.server else { return }
                continue
            }
            guard writeAll(target, buffer, count) else { return link.end() }
        }
    }

    private func writeAll(_ socket: Int32, _ buffer: [UInt8], _ count: Int) -> Bool {
        var written = 0
        while written < count {
            let step = buffer.withUnsafeBytes { bytes in
                // MSG_NOSIGNAL: a peer gone mid-write is an error here, not a SIGPIPE.
                bytes.baseAddress.map { send(socket, $0 + written, count - written, Int32(MSG_NOSIGNAL)) } ?? -1
            }
            guard step > 0 else { return false }
            written += step
        }
        return true
    }
}

/// One proxied connection: its two sockets, and whether it is still
/// forwarding, ended (both sides closed once both pumps are out) or hung
/// (both sockets left open, held by the proxy until it stops).
private final class Link: Sendable {
    enum State: Equatable {
        case open, ended
        case hung(since: ContinuousClock.Instant)
    }

    let client: Int32
    let server: Int32
    private let state = Locked(State.open)
    private let blobs = Locked<Bool?>(nil)

    /// Whether the connection is a blob transfer (known from its first bytes).
    var carriesBlobs: Bool? {
        get { blobs.withLock { $0 } }
        set { blobs.withLock { $0 = newValue } }
    }
    private let pumpsOut = Atomic(0)

    init(client: Int32, server: Int32) {
        self.client = client
        self.server = server
    }

    var isOpen: Bool { state.withLock { $0 == .open } }

    var hungAt: ContinuousClock.Instant? {
        state.withLock { if case .hung(let since) = $0 { since } else { nil } }
    }

    /// Closes both sides; wakes the other pump out of its read.
    func end() {
        let first = state.withLock { state -> Bool in
            guard state == .open else { return false }
            state = .ended
            return true
        }
        guard first else { return }
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(server, Int32(SHUT_RDWR))
    }

    /// True when this call hung it (it was open).
    func hang() -> Bool {
        state.withLock { state in
            guard state == .open else { return false }
            state = .hung(since: .now)
            return true
        }
    }

    /// Both pumps are out: an ended link's sockets close; a hung one's stay
    /// open until `release`.
    func finish() {
        guard pumpsOut.add(1, ordering: .acquiringAndReleasing).newValue == 2 else { return }
        if hungAt == nil {
            close(client)
            close(server)
        }
    }

    /// Ends a hung link, waking a pump still waiting to read. The sockets
    /// are not closed: a pump may be about to read one again, and a number
    /// closed under it could already name another connection's socket.
    func release() {
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(server, Int32(SHUT_RDWR))
    }
}
