// Where Foundation has no URLSession (WASI, say) there is nothing to wrap.
#if canImport(FoundationNetworking) || canImport(Darwin)
    import EaselClient
    import EaselProtocol
    import Foundation
    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// One client WebSocket connection on Foundation's `URLSessionWebSocketTask`.
    ///
    /// Every event comes from one serial queue, and a state machine keeps the
    /// transport's promise (opened once, then messages, then closed exactly
    /// once) whatever order URLSession's callbacks race in. Messages leave one
    /// at a time, each after the last was handed on, so they keep their order
    /// without relying on how URLSession queues sends.
    ///
    /// On Linux, URLSession does WebSockets through libcurl, and only when
    /// both libcurl and FoundationNetworking were built with them; where
    /// not, every connection closes at once and `failure` says why
    /// (Docs/server.md). Unchecked: every mutable field is behind `lock`.
    public final class URLSessionTransport: WebSocketTransport, @unchecked Sendable {
        private enum State {
            case idle, opening, open, closed
        }

        private let url: URL
        private let subprotocol: String
        private let isText: Bool
        /// URLSession's delegate queue, and where completion handlers hop to:
        /// the transport's one thread at a time.
        private let events: OperationQueue
        private let lock = NSLock()
        // Under `lock`:
        private var state = State.idle
        private var delegate: (any TransportDelegate)?
        private var session: URLSession?
        private var task: URLSessionWebSocketTask?
        private var outgoing: [[UInt8]] = []
        private var sending = false
        private var closeRequested = false
        private var error: (any Error)?

        /// A connection to `url` (`ws://` or `wss://`) asking for `subprotocol`;
        /// JSON's subprotocol sends text messages, any other binary ones.
        public init(url: URL, subprotocol: String) {
            self.url = url
            self.subprotocol = subprotocol
            isText = subprotocol == WireProtocol.jsonSubprotocol
            events = OperationQueue()
            events.maxConcurrentOperationCount = 1
            events.name = "easel.urlsession-transport"
        }

        /// Why the connection ended, when URLSession reported an error.
        public var failure: (any Error)? { lock.withLock { error } }

        public func open(_ delegate: any TransportDelegate) {
            let (task, closeAtOnce) = lock.withLock { () -> (URLSessionWebSocketTask?, Bool) in
                guard state == .idle else { return (nil, false) }
                state = .opening
                self.delegate = delegate
                // Closed before it opened: it never connects, and says so.
                if closeRequested { return (nil, true) }
                let session = URLSession(
                    configuration: .ephemeral, delegate: SessionEvents(self), delegateQueue: events)
                let task = session.webSocketTask(with: url, protocols: [subprotocol])
                task.maximumMessageSize = ProtocolLimits.messageBytes
                self.session = session
                self.task = task
                return (task, false)
            }
            if closeAtOnce { events.addOperation { self.finish(nil) } }
            task?.resume()
        }

        public func send(_ message: [UInt8]) {
            let next = lock.withLock { () -> [UInt8]? in
                guard state == .opening || state == .open, !closeRequested else { return nil }
                outgoing.append(message)
                return takeNextLocked()
            }
            if let next { write(next) }
        }

        public func close() {
            let cancel = lock.withLock { () -> URLSessionWebSocketTask? in
                switch state {
                case .idle:
                    // Opening will report it closed.
                    closeRequested = true
                    return nil
                case .opening:
                    closeRequested = true
                    return task
                case .open:
                    closeRequested = true
                    // What is queued goes first; the last write closes then.
                    return sending ? nil : task
                case .closed:
                    return nil
                }
            }
            cancel?.cancel(with: .normalClosure, reason: nil)
        }

        // MARK: On the event queue

        fileprivate func opened() {
            let delegate = lock.withLock { () -> (any TransportDelegate)? in
                guard state == .opening else { return nil }
                state = .open
                return self.delegate
            }
            guard let delegate else { return }
            delegate.transportOpened()
            let next = lock.withLock { takeNextLocked() }
            if let next { write(next) }
            receive()
        }

        /// Ends the connection: the first call reports closed, later ones
        /// (URLSession tells of one end several ways) do nothing.
        fileprivate func finish(_ failure: (any Error)?) {
            let (delegate, task, session) = lock.withLock {
                () -> ((any TransportDelegate)?, URLSessionWebSocketTask?, URLSession?) in
                guard state != .closed else { return (nil, nil, nil) }
                state = .closed
                if error == nil { error = failure }
                outgoing = []
                defer {
                    self.delegate = nil
                    self.task = nil
                    self.session = nil
                }
                return (self.delegate, self.task, self.session)
            }
            task?.cancel(with: .normalClosure, reason: nil)
            // The session holds its delegate, which holds this transport,
            // until it is invalidated.
            session?.invalidateAndCancel()
            delegate?.transportClosed()
        }

        private func receive() {
            guard let task = lock.withLock({ state == .open ? self.task : nil }) else { return }
            task.receive { [self] result in
                events.addOperation { [self] in
                    switch result {
                    case .success(let message):
                        let delegate = lock.withLock { state == .open ? self.delegate : nil }
                        guard let delegate else { return }
                        // Not a switch: Darwin's enum is resilient and Linux's
                        // is not, so neither form of `default` compiles clean
                        // on both.
                        if case .data(let data) = message {
                            delegate.transportReceived([UInt8](data))
                        } else if case .string(let text) = message {
                            delegate.transportReceived(Array(text.utf8))
                        } else {
                            return finish(nil)
                        }
                        receive()
                    case .failure(let error):
                        finish(error)
                    }
                }
            }
        }

        /// The next message to write, unless one is being written; marks
        /// one as being written.
        private func takeNextLocked() -> [UInt8]? {
            guard state == .open, !sending, !outgoing.isEmpty else { return nil }
            sending = true
            return outgoing.removeFirst()
        }

        private func write(_ bytes: [UInt8]) {
            guard let task = lock.withLock({ self.task }) else { return }
            let message: URLSessionWebSocketTask.Message =
                isText ? .string(String(decoding: bytes, as: UTF8.self)) : .data(Data(bytes))
            task.send(message) { [self] error in
                events.addOperation { [self] in
                    if let error { return finish(error) }
                    let (next, closeNow) = lock.withLock { () -> ([UInt8]?, Bool) in
                        sending = false
                        let next = takeNextLocked()
                        return (next, next == nil && closeRequested && state == .open)
                    }
                    if let next {
                        write(next)
                    } else if closeNow {
                        task.cancel(with: .normalClosure, reason: nil)
                    }
                }
            }
        }
    }

    /// URLSession's delegate for one transport. URLSession keeps its
    /// delegate until invalidated, so this is what holds the transport while
    /// the connection lives.
    private final class SessionEvents: NSObject, URLSessionWebSocketDelegate, Sendable {
        let transport: URLSessionTransport

        init(_ transport: URLSessionTransport) {
            self.transport = transport
        }

        func urlSession(
            _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?
        ) {
            transport.opened()
        }

        func urlSession(
            _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
            didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
        ) {
            transport.finish(nil)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            transport.finish(error)
        }
    }
#endif
