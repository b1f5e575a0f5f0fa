#if canImport(FoundationNetworking) || canImport(Darwin)
    import EaselClient
    import EaselSync
    import Foundation

    extension DocumentSession {
        /// A session over `URLSessionWebSocketTask` to `url` (`ws://`, or
        /// `wss://` behind a TLS proxy; its path `/d/<document>` when it
        /// names none), a new connection each time it (re)connects.
        public convenience init(
            engine: SyncClient, url: URL, origin: ContinuousClock.Instant = .now,
            backoff: Backoff = .reconnect, onEvents: EventHandler? = nil
        ) {
            self.init(engine: engine, origin: origin, backoff: backoff, onEvents: onEvents) { route in
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
                let path = route.path(under: components?.path ?? "")
                let query = path.firstIndex(of: "?")
                components?.path = String(path[..<(query ?? path.endIndex)])
                if let query { components?.percentEncodedQuery = String(path[path.index(after: query)...]) }
                return URLSessionTransport(url: components?.url ?? url, subprotocol: route.encoding.subprotocol)
            }
        }
    }
#endif
