import EaselLocking
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Hostile clients that speak raw TCP to the server, each kind on a thread
/// of its own until `stop()`:
/// - churn: connections opened and dropped, at a steady rate, some right
///   after connecting, some after the upgrade (with a reset), some after a
///   hello;
/// - slow handshakes: sockets that send their upgrade request a byte at a
///   time, replaced as the server cuts them off;
/// - non-readers: joiners of a document that never read a byte of their
///   welcome (with a 4 KiB receive buffer, so the kernel cannot read it for
///   them), replaced as the server closes them.
final class RawAttackers: Sendable {
    struct Counts: Sendable {
        var churned = 0
        var slowOpened = 0
        /// Slow handshakes the server cut off, and of those, the ones cut
        /// before 9 s: its head timeout is 10 s, so none should be.
        var slowCut = 0
        var slowCutEarly = 0
        var nonReadersJoined = 0
        var nonReadersCut = 0
        /// Slow and non-reading sockets held at once, at most, and of those
        /// the non-readers (each may hold a queue).
        var heldAtMost = 0
        var nonReadersHeldAtMost = 0
        var slowHeld = 0
        var nonReadersHeld = 0

        mutating func noteHeld() {
            heldAtMost = max(heldAtMost, slowHeld + nonReadersHeld)
            nonReadersHeldAtMost = max(nonReadersHeldAtMost, nonReadersHeld)
        }
        var failedConnects = 0

        /// Two rounds' counts as one: totals added, the most held at once
        /// the larger of the two, the sockets still held left out (none are
        /// once stopped).
        func adding(_ other: Counts) -> Counts {
            var sum = self
            sum.churned += other.churned
            sum.slowOpened += other.slowOpened
            sum.slowCut += other.slowCut
            sum.slowCutEarly += other.slowCutEarly
            sum.nonReadersJoined += other.nonReadersJoined
            sum.nonReadersCut += other.nonReadersCut
            sum.heldAtMost = max(heldAtMost, other.heldAtMost)
            sum.nonReadersHeldAtMost = max(nonReadersHeldAtMost, other.nonReadersHeldAtMost)
            sum.failedConnects += other.failedConnects
            return sum
        }
    }

    private let port: Int
    private let counts = Locked(Counts())
    private let stopping = Locked(false)
    private let finished = DispatchGroup()

    init(port: Int) {
        self.port = port
    }

    func stop() -> Counts {
        stopping.withLock { $0 = true }
        finished.wait()
        return counts.value
    }

    private var isStopping: Bool { stopping.value }

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        finished.enter()
        Thread.detachNewThread { [finished] in
            body()
            finished.leave()
        }
    }

    // MARK: Churn

    func churn(perSecond: Int) {
        spawn { [self] in
            var opened = 0
            let start = ContinuousClock.now
            while !isStopping {
                let due = Int((ContinuousClock.now - start).seconds * Double(perSecond))
                guard opened < due else {
                    Thread.sleep(forTimeInterval: 0.005)
                    continue
                }
                opened += 1
                guard let socket = connected() else { continue }
                switch opened % 3 {
                case 0:
                    break
                case 1:
                    _ = send(upgradeRequest(), on: socket)
                    _ = readHead(of: socket)
                    reset(socket)
                default:
                    _ = send(upgradeRequest(), on: socket)
                    if readHead(of: socket) {
                        _ = send(Self.frame(Self.hello(document: "hostile/churn", index: opened)), on: socket)
                    }
                }
                close(socket)
                counts.withLock { $0.churned += 1 }
            }
        }
    }

    // MARK: Slow handshakes

    func slowHandshakes(count: Int) {
        spawn { [self] in
            let request = Array(upgradeRequest().utf8)
            var held: [(socket: Int32, sent: Int, opened: ContinuousClock.Instant)] = []
            while !isStopping {
                while held.count < count, let socket = connected() {
                    held.append((socket, 0, .now))
                    counts.withLock {
                        $0.slowOpened += 1
                        $0.slowHeld = held.count
                        $0.noteHeld()
                    }
                }
                held = held.compactMap { entry in
                    if isClosedByPeer(entry.socket) {
                        close(entry.socket)
                        let early = ContinuousClock.now - entry.opened < .seconds(9)
                        counts.withLock {
                            $0.slowCut += 1
                            $0.slowCutEarly += early ? 1 : 0
                            $0.slowHeld -= 1
                        }
                        return nil
                    }
                    guard entry.sent < request.count - 1 else { return entry }
                    _ = request[entry.sent..<entry.sent + 1].withUnsafeBytes {
                        Glibc.send(entry.socket, $0.baseAddress, 1, Int32(MSG_NOSIGNAL))
                    }
                    return (entry.socket, entry.sent + 1, entry.opened)
                }
                Thread.sleep(forTimeInterval: 0.5)
            }
            for entry in held { close(entry.socket) }
        }
    }

    // MARK: Non-readers

    func nonReaders(count: Int, document: String) {
        spawn { [self] in
            var held: [Int32] = []
            var joined = 0
            while !isStopping {
                while held.count < count, !isStopping, let socket = connected(receiveBuffer: 4096) {
                    guard send(upgradeRequest(), on: socket), readHead(of: socket),
                        send(Self.frame(Self.hello(document: document, index: joined)), on: socket)
                    else {
                        close(socket)
                        break
                    }
                    joined += 1
                    held.append(socket)
                    counts.withLock {
                        $0.nonReadersJoined += 1
                        $0.nonReadersHeld = held.count
                        $0.noteHeld()
                    }
                }
                held = held.filter { socket in
                    guard isClosedByPeer(socket) else { return true }
                    close(socket)
                    counts.withLock {
                        $0.nonReadersCut += 1
                        $0.nonReadersHeld -= 1
                    }
                    return false
                }
                Thread.sleep(forTimeInterval: 0.2)
            }
            for socket in held { close(socket) }
        }
    }

    // MARK: Sockets

    private func connected(receiveBuffer: Int32? = nil) -> Int32? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        if var size = receiveBuffer {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard Loopback.connect(socket, port: port) else {
            close(socket)
            counts.withLock { $0.failedConnects += 1 }
            return nil
        }
        return socket
    }

    private func upgradeRequest() -> String {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        return "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: easel.v1.json\r\n\r\n"
    }

    private func send(_ text: String, on socket: Int32) -> Bool {
        send(Array(text.utf8), on: socket)
    }

    private func send(_ bytes: [UInt8], on socket: Int32) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads the answer's head and nothing after it; whether it was a 101.
    /// It looks at what has arrived without taking it, then takes exactly
    /// the head: read a byte at a time, the 133 heads a second of
    /// 200 churned connections cost this process, which shares the machine
    /// with the server, some 22,000 calls a second.
    private func readHead(of socket: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = [13, 10, 13, 10]
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let seen = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
            guard seen > 0 else { return false }
            guard let end = buffer[..<seen].firstRange(of: terminator)?.upperBound else {
                guard seen < buffer.count else { return false }
                Thread.sleep(forTimeInterval: 0.001)
                continue
            }
            let taken = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, end, 0) }
            return taken == end && String(decoding: buffer.prefix(16), as: UTF8.self).contains(" 101 ")
        }
        return false
    }

    /// Whether the server closed its end, looked at without reading.
    private func isClosedByPeer(_ socket: Int32) -> Bool {
        // POLLRDHUP (Linux's, behind _GNU_SOURCE, which Swift's Glibc
        // module does not define).
        let peerClosed: Int16 = 0x2000
        var entry = pollfd(fd: socket, events: peerClosed, revents: 0)
        guard poll(&entry, 1, 0) == 1 else { return false }
        return entry.revents & (peerClosed | Int16(POLLHUP | POLLERR)) != 0
    }

    /// Drops the connection with a reset instead of a close handshake.
    private func reset(_ socket: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    static func hello(document: String, index: Int) -> String {
        let replica = String(format: "%016llx", 0xE000 + UInt64(index))
        return ##"{"type":"hello","protocol":1,"document":"\##(document)","replica":"\##(replica)","##
            + ##""user":{"name":"hostile","initials":"H","color":"#cc0000ff"}}"##
    }

    /// A masked text frame, as a client must send.
    static func frame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        let mask: [UInt8] = (0..<4).map { _ in UInt8.random(in: 0...255) }
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }
}
