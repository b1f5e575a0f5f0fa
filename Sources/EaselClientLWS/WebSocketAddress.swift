/// Where a server listens: `ws://host:port/path`.
public struct WebSocketAddress: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var path: String

    /// Parses `ws://host[:port][/path]`; only plain `ws` (a TLS-terminating
    /// proxy in front of the server handles `wss`).
    public init?(_ url: String) {
        guard url.hasPrefix("ws://") else { return nil }
        let rest = url.dropFirst("ws://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
        if let colon = authority.lastIndex(of: ":") {
            guard let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port) else {
                return nil
            }
            host = String(authority[..<colon])
            self.port = port
        } else {
            host = String(authority)
            port = 80
        }
        guard !host.isEmpty else { return nil }
    }

    public var description: String { "ws://\(host):\(port)\(path)" }
}
