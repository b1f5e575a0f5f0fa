import Foundation

/// A WebSocket client for load generation, on a plain non-blocking socket:
/// a load generator that cost as much as the server would measure itself.
/// It reads in big gulps and hands over whole messages without copying
/// them; it sends masked frames (RFC 6455 asks clients to) from one buffer.
final class LoadSocket {
    let fd: Int32
    private var input: [UInt8]
    private var start = 0
    private var end = 0
    private var output: [UInt8] = []
    private var outputSent = 0
    /// Bytes received since the handshake, frames included.
    private(set) var receivedBytes = 0
    private var maskKey: UInt32 = 0x1F2E_3D4C

    /// Connects and upgrades to a WebSocket on `path` (a document's
    /// `/d/<document>` for a router to route).
    init(
        port: Int, subprotocol: String?, path: String = "/", bufferBytes: Int = 256 << 10,
        handshakeTimeoutSeconds: Int = 0
    ) throws {
        input = [UInt8](repeating: 0, count: bufferBytes)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            // Closed by deinit, which runs for a throw once every stored
            // property is set (closing here too could close another
            // thread's new socket of the same number).
            throw BenchError("connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if handshakeTimeoutSeconds > 0 {
            var limit = timeval(tv_sec: handshakeTimeoutSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        // A throw from here on closes the socket in deinit: every stored
        // property is set.
        try handshake(port: port, subprotocol: subprotocol, path: path)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(fd)
    }

    private func handshake(port: Int, subprotocol: String?, path: String) throws {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let subprotocol { request += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw BenchError("cannot send the handshake")
        }
        // Blocking reads until the end of the response's headers.
        while true {
            let count = input.withUnsafeMutableBytes { read(fd, $0.baseAddress! + end, $0.count - end) }
            guard count > 0 else { throw BenchError("the server closed during the handshake") }
            end += count
            let head = input[0..<end]
            if let blank = head.firstRange(of: [13, 10, 13, 10]) {
                let status = String(decoding: input[0..<min(end, 12)], as: UTF8.self)
                guard status.hasPrefix("HTTP/1.1 101") else {
                    throw BenchError("the handshake was refused: \(status)")
                }
                start = blank.upperBound
                return
            }
        }
    }

    /// Queues one masked frame and sends what the socket takes.
    func send(_ payload: [UInt8], text: Bool = false) {
        let length = payload.count
        output.append(0x80 | (text ? 1 : 2))
        if length < 126 {
            output.append(0x80 | UInt8(length))
        } else if length <= 0xFFFF {
            output += [0x80 | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            output.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: length >> shift))
            }
        }
        maskKey = maskKey &* 1_103_515_245 &+ 12345
        let key = withUnsafeBytes(of: maskKey) { Array($0) }
        output += key
        let offset = output.count
        output += payload
        output.withUnsafeMutableBufferPointer { buffer in
            for index in 0..<length { buffer[offset + index] ^= key[index & 3] }
        }
        flush()
    }

    /// True while queued bytes wait for the socket.
    var wantsToWrite: Bool { outputSent < output.count }

    func flush() {
        while outputSent < output.count {
            let count = output.withUnsafeBytes { write(fd, $0.baseAddress! + outputSent, $0.count - outputSent) }
            guard count > 0 else { return }
            outputSent += count
        }
        output.removeAll(keepingCapacity: true)
        outputSent = 0
    }

    /// Reads what has arrived and calls `message` with each whole message's
    /// payload (valid only during the call). False when the connection is
    /// over: closed, or a close frame arrived.
    func receive(_ message: (UnsafeRawBufferPointer) -> Void) -> Bool {
        if start == end, end > 0 { (start, end) = (0, 0) }
        while true {
            if end == input.count {
                if start > 0 {
                    input.withUnsafeMutableBytes {
                        $0.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: end - start)
                    }
                    (start, end) = (0, end - start)
                } else {
                    input += [UInt8](repeating: 0, count: input.count)
                }
            }
            let count = input.withUnsafeMutableBytes { read(fd, $0.baseAddress! + end, $0.count - end) }
            if count == 0 { return false }
            if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK }
            end += count
            receivedBytes += count
            guard parseFrames(message) else { return false }
        }
    }

    /// Reads what has arrived and only counts the bytes: for a peer whose
    /// messages all have one known size.
    func drain() -> Bool {
        while true {
            let count = input.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count == 0 { return false }
            if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK }
            receivedBytes += count
        }
    }

    private func parseFrames(_ message: (UnsafeRawBufferPointer) -> Void) -> Bool {
        input.withUnsafeBytes { bytes in
            while end - start >= 2 {
                let opcode = bytes[start] & 0x0F
                var length = Int(bytes[start + 1] & 0x7F)
                var header = 2
                if length == 126 {
                    guard end - start >= 4 else { break }
                    length = Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
                    header = 4
                } else if length == 127 {
                    guard end - start >= 10 else { break }
                    length = (0..<8).reduce(0) { $0 << 8 | Int(bytes[start + 2 + $1]) }
                    header = 10
                }
                guard end - start >= header + length else { break }
                if opcode == 8 { return false }
                message(UnsafeRawBufferPointer(rebasing: bytes[(start + header)..<(start + header + length)]))
                start += header + length
            }
            return true
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
