import EaselClient
import EaselSync

extension DocumentSession {
    /// A session on a libwebsockets loop, to `ws://host:port` (its path
    /// then `/d/<document>`, as a router needs) or to the path given.
    public convenience init(
        engine: SyncClient, url: String, loop: ClientLoop, origin: ContinuousClock.Instant = .now,
        backoff: Backoff = .reconnect, onEvents: EventHandler? = nil
    ) throws {
        guard let base = WebSocketAddress(url) else { throw TransportError("not a ws:// URL: \(url)") }
        self.init(engine: engine, origin: origin, backoff: backoff, onEvents: onEvents) { route in
            var address = base
            address.path = route.path(under: base.path)
            return loop.transport(to: address, subprotocol: route.encoding.subprotocol)
        }
    }
}
