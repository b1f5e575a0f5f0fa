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
            backoffCap: Duration = .seconds(10), onEvents: EventHandler? = nil
        ) {
            self.init(engine: engine, origin: origin, backoffCap: backoffCap, onEvents: onEvents) { encoding in
                URLSessionTransport(url: url, subprotocol: encoding.subprotocol)
            }
        }
    }
#endif
