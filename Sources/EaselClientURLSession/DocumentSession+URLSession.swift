#if canImport(FoundationNetworking) || canImport(Darwin)
    import EaselClient
    import EaselSync
    import Foundation

    extension DocumentSession {
        /// A session over `URLSessionWebSocketTask` to `url` (`ws://`, or
        /// `wss://` behind a TLS proxy), a new connection each time it
        /// (re)connects.
        public convenience init(
            engine: SyncClient, url: URL, origin: ContinuousClock.Instant = .now,
            backoff: Backoff = .reconnect, onEvents: EventHandler? = nil
        ) {
            self.init(engine: engine, origin: origin, backoff: backoff, onEvents: onEvents) { encoding in
                URLSessionTransport(url: url, subprotocol: encoding.subprotocol)
            }
        }
    }
#endif
