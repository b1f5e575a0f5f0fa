import EaselModel
import EaselProtocol
import EaselSync
import Foundation

/// A document open on a server: the client sync engine on a transport,
/// connected and reconnected (with jittered exponential backoff) until
/// stopped, its timers ticking.
///
/// The engine is only touched under the session's lock: the app edits it
/// through `edit`, transport events arrive on the transport's thread, and a
/// timer ticks it every 50 ms. Outputs are handed to the transport before
/// the lock is released, so messages leave in the order the engine made
/// them, whichever thread made them.
/// Unchecked: every field is behind `lock`, held while outputs go to the transport.
public final class DocumentSession: @unchecked Sendable {
    public typealias TransportFactory = @Sendable (WireEncoding) -> any WebSocketTransport
    /// Makes a transport for the route the session's next connection takes.
    public typealias RoutedTransportFactory = @Sendable (ConnectionRoute) -> any WebSocketTransport
    /// Told what happened to the session's edits (acknowledged, refused),
    /// on the transport's thread, as it happens: in the order messages
    /// arrived, as long as the transport reports them from one thread at a
    /// time (as `WebSocketTransport` promises).
    public typealias EventHandler = @Sendable ([SyncEvent]) -> Void

    private let lock = NSLock()
    private var engine: SyncClient
    private let makeTransport: RoutedTransportFactory
    private var transport: (any WebSocketTransport)?
    /// Which connection is current: events of an older one are ignored.
    private var generation = 0
    private var running = false
    private var failedAttempts = 0
    private var openedConnections = 0
    private var timer: DispatchSourceTimer?
    private let queue = DispatchQueue(label: "easel.session")
    private let origin: ContinuousClock.Instant
    private let backoff: Backoff
    private let onEvents: EventHandler?

    /// A session whose transports `makeTransport` makes. Reconnection waits
    /// as `backoff` says (the web page waits by the same rule). The engine's
    /// time counts from `origin`, so sessions sharing one agree on what time
    /// it is.
    public convenience init(
        engine: SyncClient, origin: ContinuousClock.Instant = .now, backoff: Backoff = .reconnect,
        onEvents: EventHandler? = nil,
        transport makeTransport: @escaping TransportFactory
    ) {
        self.init(engine: engine, origin: origin, backoff: backoff, onEvents: onEvents) { route in
            makeTransport(route.encoding)
        }
    }

    /// A session whose transports `makeTransport` makes for each route: the
    /// document's path, and the node a `moved` error named.
    public init(
        engine: SyncClient, origin: ContinuousClock.Instant = .now, backoff: Backoff = .reconnect,
        onEvents: EventHandler? = nil,
        routedTransport makeTransport: @escaping RoutedTransportFactory
    ) {
        self.engine = engine
        self.makeTransport = makeTransport
        self.origin = origin
        self.backoff = backoff
        self.onEvents = onEvents
    }

    /// The engine's time: milliseconds since the origin.
    public var now: Timestamp {
        Timestamp(milliseconds: (ContinuousClock.now - origin).wholeMilliseconds)
    }

    /// Whether the session is connecting or connected (between `start` and
    /// `stop`).
    public var isRunning: Bool { lock.withLock { running } }

    /// How many connections have opened: one more than the reconnections.
    public var connectionsOpened: Int { lock.withLock { openedConnections } }

    // MARK: Running

    public func start() {
        lock.lock()
        guard !running else { return lock.unlock() }
        running = true
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.tick() }
        self.timer = timer
        lock.unlock()
        timer.resume()
        connect()
    }

    /// Closes the connection and stops reconnecting.
    public func stop() {
        let (transport, timer) = lock.withLock {
            running = false
            generation += 1
            defer {
                self.transport = nil
                self.timer = nil
            }
            engine.connectionClosed(at: now)
            return (self.transport, self.timer)
        }
        timer?.cancel()
        transport?.close()
    }

    /// Reads or changes the engine (edit the document, read its state), then
    /// sends whatever the change produced, and reports the events it made
    /// (a failed place, say) to the event handler.
    @discardableResult
    public func edit<T>(_ body: (inout SyncClient) throws -> T) rethrows -> T {
        lock.lock()
        var events: [SyncEvent] = []
        defer {
            carryOutOutputs()
            events = engine.takeEvents()
            lock.unlock()
            if !events.isEmpty { onEvents?(events) }
        }
        return try body(&engine)
    }

    /// The engine's current state, read under the lock.
    public func read<T>(_ body: (SyncClient) -> T) -> T {
        lock.withLock { body(engine) }
    }

    /// Waits until `condition` holds of the engine, checking every 10 ms.
    public func wait(timeout: Duration, until condition: (SyncClient) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if read(condition) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return read(condition)
    }

    private func connect() {
        let (transport, link) = lock.withLock { () -> ((any WebSocketTransport)?, SessionLink?) in
            guard running, self.transport == nil else { return (nil, nil) }
            generation += 1
            let transport = makeTransport(
                ConnectionRoute(
                    encoding: engine.configuration.encoding, document: engine.document, node: engine.movedTo))
            self.transport = transport
            return (transport, SessionLink(session: self, generation: generation))
        }
        if let transport, let link { transport.open(link) }
    }

    private func tick() {
        edit { $0.tick(at: now) }
    }

    /// Hands the engine's outputs to the current transport; called with the
    /// lock held.
    private func carryOutOutputs() {
        let outputs = engine.takeOutputs()
        guard !outputs.isEmpty, let transport else { return }
        for output in outputs {
            switch output {
            case .send(let message):
                for frame in message.wireFrames(as: engine.configuration.encoding) { transport.send(frame) }
            case .disconnect:
                transport.close()
            }
        }
    }

    // MARK: Transport events

    fileprivate func opened(_ generation: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard generation == self.generation else { return }
        openedConnections += 1
        engine.connectionOpened(at: now)
        carryOutOutputs()
    }

    fileprivate func received(_ bytes: [UInt8], _ generation: Int) {
        lock.lock()
        guard generation == self.generation,
            let message = try? Message(decoding: bytes, as: engine.configuration.encoding)
        else { return lock.unlock() }
        engine.receive(message, at: now)
        if engine.connectionState == .connected || engine.connectionState == .weak { failedAttempts = 0 }
        carryOutOutputs()
        // Taken even with nobody listening, so they cannot pile up.
        let events = engine.takeEvents()
        lock.unlock()
        if !events.isEmpty { onEvents?(events) }
    }

    fileprivate func closed(_ generation: Int) {
        let delay = lock.withLock { () -> Duration? in
            guard generation == self.generation else { return nil }
            engine.connectionClosed(at: now)
            transport = nil
            guard running else { return nil }
            failedAttempts += 1
            return backoff.wait(afterFailures: failedAttempts)
        }
        guard let delay else { return }
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(delay.wholeMilliseconds))) { [weak self] in
            self?.connect()
        }
    }
}

/// One connection's events, labelled with the connection they belong to.
private final class SessionLink: TransportDelegate {
    let session: DocumentSession
    let generation: Int

    init(session: DocumentSession, generation: Int) {
        self.session = session
        self.generation = generation
    }

    func transportOpened() { session.opened(generation) }
    func transportReceived(_ message: [UInt8]) { session.received(message, generation) }
    func transportClosed() { session.closed(generation) }
}
