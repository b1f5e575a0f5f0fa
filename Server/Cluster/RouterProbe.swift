import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Asks the router which node it sends a document to: `GET
/// /d/<document>?home=1` goes where a client of that document would (or,
/// when that node refused the connection, where the router redispatched
/// it: the Rebalancer asks twice), and the node there answers with its
/// own name. One keep-alive HTTP/1.1
/// connection, blocking, used by one thread.
final class RouterProbe {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let host: String
    let port: Int
    private var socket: Int32 = -1
    private var received: [UInt8] = []

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    deinit { disconnect() }

    /// The name of the node the router sends `document` to now.
    func home(of document: String) throws(Failure) -> String {
        // Once more on a fresh connection: the router closes idle ones.
        for attempt in 0..<2 {
            do throws(Failure) {
                if socket < 0 { try connect() }
                return try ask(document)
            } catch {
                disconnect()
                if attempt == 1 { throw error }
            }
        }
        throw Failure(description: "unreachable")
    }

    private func ask(_ document: String) throws(Failure) -> String {
        let request = Array("GET /d/\(document)?home=1 HTTP/1.1\r\nHost: \(host)\r\n\r\n".utf8)
        let sent = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { throw Failure(description: "the router closed the connection") }
        let headEnd = try readUntilHeadEnds()
        let head = String(decoding: received[..<headEnd], as: UTF8.self)
        received.removeFirst(headEnd + 4)
        let lines = head.split(separator: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
        var length: Int?
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        guard let length else {
            throw Failure(description: "the router's answer had no length (status \(status ?? 0))")
        }
        try readAtLeast(length)
        let body = String(decoding: received.prefix(length), as: UTF8.self)
        received.removeFirst(length)
        guard status == 200 else {
            throw Failure(description: "the router answered \(status ?? 0): \(body.prefix(120))")
        }
        let name = body.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw Failure(description: "the node the router chose gave no name") }
        return name
    }

    private func readUntilHeadEnds() throws(Failure) -> Int {
        let marker: [UInt8] = [13, 10, 13, 10]
        var searched = 0
        while true {
            if received.count >= 4 {
                for index in max(0, searched - 3)...(received.count - 4)
                where received[index..<index + 4].elementsEqual(marker) {
                    return index
                }
                searched = received.count
            }
            guard received.count < 16_384 else { throw Failure(description: "the router's answer head is too long") }
            try readMore()
        }
    }

    private func readAtLeast(_ count: Int) throws(Failure) {
        while received.count < count { try readMore() }
    }

    private func readMore() throws(Failure) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else {
            throw Failure(description: count == 0 ? "the router closed the connection" : "no answer from the router")
        }
        received.append(contentsOf: chunk[..<count])
    }

    private func connect() throws(Failure) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
            throw Failure(description: "cannot resolve the router's host \(host)")
        }
        defer { freeaddrinfo(first) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            let opened = Glibc.socket(address.pointee.ai_family, address.pointee.ai_socktype, 0)
            if opened >= 0 {
                // A router that stops answering holds a round up two seconds, not forever.
                var limit = timeval(tv_sec: 2, tv_usec: 0)
                setsockopt(opened, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(opened, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                if Glibc.connect(opened, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                    socket = opened
                    received = []
                    return
                }
                close(opened)
            }
            candidate = address.pointee.ai_next
        }
        throw Failure(description: "cannot connect to the router at \(host):\(port)")
    }

    private func disconnect() {
        if socket >= 0 { close(socket) }
        socket = -1
        received = []
    }
}
