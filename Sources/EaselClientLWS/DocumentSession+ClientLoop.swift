import EaselClient
import EaselSync

extension DocumentSession {
    /// A session on a libwebsockets loop, to `ws://host:port`.
    public convenience init(
        engine: SyncClient, url: String, loop: ClientLoop, origin: ContinuousClock.Instant = .now,
        backoff: Backoff = .reconnect, onEvents: EventHandler? = nil
    ) throws {
        guard let address = WebSocketAddress(url) else { throw TransportError("not a ws:// URL: \(url)") }
        self.init(engine: engine, origin: origin, backoff: backoff, onEvents: onEvents) { encoding in
            loop.transport(to: address, subprotocol: encoding.subprotocol)
        }
    }
}
