import EaselLocking
import EaselTestSupport
import Foundation
import Testing

@testable import EaselServer

/// The front door on a real socket, without libwebsockets: what it hands
/// over, and how.
@Suite(.serialized) struct FrontDoorTests {
    /// Runs a front door on a free port until `body` is done; the sockets
    /// it handed over, which the test then owns. `body` gets the port and
    /// how many were handed over so far.
    private func withFrontDoor(_ body: (_ port: Int, _ handedSoFar: () -> Int) throws -> Void) throws -> [Int32] {
        let door = try FrontDoor(host: "127.0.0.1", port: 0)
        let handed = Locked<[Int32]>([])
        door.start(handOver: { socket in handed.withLock { $0.append(socket) } }, refused: { _, _ in })
        defer { door.stop() }
        try body(door.port) { handed.withLock { $0.count } }
        return handed.withLock { $0 }
    }

    private func connect(_ port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw ServerProcessError("cannot connect to the front door") }
        return socket
    }

    private func waitFor(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(5)
        while !condition(), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }

    @Test func aWholeHeadIsHandedOverUnreadWithNagleOffAsLibwebsocketsWouldHaveIt() throws {
        let request = Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        var client: Int32 = -1
        let handed = try withFrontDoor { port, _ in
            client = try connect(port)
            // The head in two pieces: the first is not enough.
            _ = request.prefix(10).withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
            Thread.sleep(forTimeInterval: 0.1)
            _ = request.dropFirst(10).withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
            Thread.sleep(forTimeInterval: 0.3)
        }
        defer {
            close(client)
            for socket in handed { close(socket) }
        }
        let socket = try #require(handed.first)
        #expect(handed.count == 1)
        var noDelay: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, &length) == 0)
        #expect(noDelay != 0, "TCP_NODELAY is set")
        var sendBuffer: Int32 = 0
        #expect(getsockopt(socket, SOL_SOCKET, SO_SNDBUF, &sendBuffer, &length) == 0)
        // Linux caps what is asked at net.core.wmem_max, then doubles it.
        let cap =
            (try? String(contentsOfFile: "/proc/sys/net/core/wmem_max", encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? .max
        #expect(sendBuffer == 2 * min(FrontDoor.sendBufferBytes, cap), "the kernel's send buffer is bounded")
        // Nothing was taken from the socket: lws reads the request whole.
        var buffer = [UInt8](repeating: 0, count: 256)
        let read = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        #expect(Array(buffer.prefix(max(read, 0))) == request)
    }

    @Test func aRefusedHeadIsAnsweredAndNeverHandedOver() throws {
        var answer = ""
        let handed = try withFrontDoor { port, _ in
            let client = try connect(port)
            defer { close(client) }
            let request = Array("GET /a%00 HTTP/1.1\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
            var buffer = [UInt8](repeating: 0, count: 1024)
            var timeout = timeval(tv_sec: 3, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let read = recv(client, &buffer, buffer.count, 0)
            answer = String(decoding: buffer.prefix(max(read, 0)), as: UTF8.self)
        }
        #expect(handed.isEmpty)
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n") && answer.contains("connection: close"), "\(answer)")
    }

    /// The door drains what a refused client sent, so the connection ends
    /// in a close, not a reset (which some clients take as a lost answer).
    @Test func aRefusedClientThatHangsUpGetsItsAnswerAndACloseNotAReset() throws {
        var answer = ""
        var ending: Int32 = -1
        _ = try withFrontDoor { port, _ in
            let client = try connect(port)
            defer { close(client) }
            let request = Array("GET /a%00 HTTP/1.1\r\n\r\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: 2000)
            _ = request.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
            shutdown(client, Int32(SHUT_WR))
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 1024)
            while true {
                let read = recv(client, &buffer, buffer.count, 0)
                if read > 0 {
                    answer += String(decoding: buffer.prefix(read), as: UTF8.self)
                    continue
                }
                ending = read == 0 ? 0 : errno
                break
            }
        }
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer)")
        #expect(ending == 0, "the connection ended with errno \(ending), not a close")
    }

    /// Waiting sockets are watched edge-triggered: each byte that arrives
    /// must wake the door, or a head trickled in would never be seen whole.
    @Test func aHeadTrickledAByteAtATimeIsHandedOverOnceWhole() throws {
        let request = Array("GET /d/trickle HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        var client: Int32 = -1
        var handedBeforeTheLastByte = 0
        let sockets = try withFrontDoor { port, handedSoFar in
            client = try connect(port)
            for (index, byte) in request.enumerated() {
                if index == request.count - 1 { handedBeforeTheLastByte = handedSoFar() }
                _ = [byte].withUnsafeBytes { send(client, $0.baseAddress, 1, 0) }
                Thread.sleep(forTimeInterval: 0.005)
            }
            Thread.sleep(forTimeInterval: 0.3)
        }
        defer {
            close(client)
            for socket in sockets { close(socket) }
        }
        #expect(handedBeforeTheLastByte == 0)
        #expect(sockets.count == 1)
    }

    @Test func aClientThatHangsUpHalfwayThroughItsHeadIsClosedAtOnce() throws {
        var closedWithin: Double?
        let handed = try withFrontDoor { port, _ in
            let client = try connect(port)
            defer { close(client) }
            _ = Array("GET / HT".utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
            Thread.sleep(forTimeInterval: 0.1)
            shutdown(client, Int32(SHUT_WR))
            let start = Date()
            var buffer = [UInt8](repeating: 0, count: 64)
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            // The door closing its end, with the head unread, resets the
            // connection.
            let read = recv(client, &buffer, buffer.count, 0)
            if read == 0 || (read < 0 && errno == ECONNRESET) { closedWithin = Date().timeIntervalSince(start) }
        }
        #expect(handed.isEmpty)
        let seconds = try #require(closedWithin, "the door never closed its end")
        #expect(seconds < 2, "closed after \(seconds) s, not at the 10 s head deadline")
    }
}
