import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One gauge of a server's /metrics, read straight from its port (not
/// through a proxy that may be misbehaving).
enum ServerGauge {
    /// The value of `name` (as `easel_connections`), or nil when the
    /// server did not answer.
    static func read(_ name: String, port: Int) -> Double? {
        readAll(port: port)?[name]
    }

    /// Every sample of one scrape without labels, by name; nil when the
    /// server did not answer.
    static func readAll(port: Int) -> [String: Double]? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        // A server too stuck to answer in 2 s counts as not answering.
        var wait = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard Loopback.connect(socket, port: port) else { return nil }
        let request = Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ write(socket, $0.baseAddress, $0.count) }) == request.count else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(socket, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            response += buffer[..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 200") else { return nil }
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("easel_") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { samples[String(parts[0])] = value }
        }
        return samples
    }
}
