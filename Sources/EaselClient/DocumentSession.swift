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
/// timer ticks it every 50 ms.
public final class DocumentSession: TransportDelegate, @unchecked Sendable {
    public typealias TransportFactory = @Sendable (WireEncoding) -> any WebSocketTransport

    private let lock = NSLock()
    private var engine: SyncClient
    private let makeTransport: TransportFactory
    private var transport: (any WebSocketTransport)?
    private var running = false
    private var failedAttempts = 0
    private var timer: DispatchSourceTimer?
    private let queue = DispatchQueue(label: "easel.session")
    private let started = ContinuousClock.now

    /// Reconnection waits `backoffBase × 2^attempt`, at most `backoffCap`, times
    /// a random factor in 0.5…1 so many clients do not return in step.
    public var backoffBase: Duration = .milliseconds(100)
    public var backoffCap: Duration = .seconds(10)

    public init(engine: SyncClient, transport makeTransport: @escaping TransportFactory) {
        self.engine = engine
        self.makeTransport = makeTransport
    }

    /// A session on a libwebsockets loop, to `ws://host:port`.
    public convenience init(engine: SyncClient, url: String, loop: ClientLoop) throws {
        guard let address = WebSocketAddress(url) else { throw TransportError("not a ws:// URL: \(url)") }
        self.init(engine: engine) { encoding in loop.transport(to: address, subprotocol: encoding.subprotocol) }
    }

    private var now: Timestamp {
        let elapsed = ContinuousClock.now - started
        return Timestamp(
            milliseconds: elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    // MARK: Running

    public func start() {
        let shouldConnect = lock.withLock {
            defer { running = true }
            return !running
        }
        guard shouldConnect else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        lock.withLock { self.timer = timer }
        connect()
    }

    /// Closes the connection and stops reconnecting.
    public func stop() {
        let (transport, timer) = lock.withLock {
            running = false
            defer {
                self.transport = nil
                self.timer = nil
            }
            return (self.transport, self.timer)
        }
        timer?.cancel()
        transport?.close()
    }

    /// Reads or changes the engine (edit the document, read its state), then
    /// sends whatever the change produced.
    @discardableResult
    public func edit<T>(_ body: (inout SyncClient) throws -> T) rethrows -> T {
        lock.lock()
        let result: T
        do {
            result = try body(&engine)
        } catch {
            let outputs = engine.takeOutputs()
            lock.unlock()
            carryOut(outputs)
            throw error
        }
        let outputs = engine.takeOutputs()
        let transport = self.transport
        lock.unlock()
        carryOut(outputs, on: transport)
        return result
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
        let transport = lock.withLock { () -> (any WebSocketTransport)? in
            guard running else { return nil }
            let transport = makeTransport(engine.configuration.encoding)
            self.transport = transport
            return transport
        }
        transport?.open(self)
    }

    private func tick() {
        edit { $0.tick(at: now) }
    }

    private func carryOut(_ outputs: [ClientOutput], on transport: (any WebSocketTransport)? = nil) {
        guard !outputs.isEmpty, let transport = transport ?? lock.withLock({ self.transport }) else { return }
        let encoding = read { $0.configuration.encoding }
        for output in outputs {
            switch output {
            case .send(let message):
                for frame in message.wireFrames(as: encoding) { transport.send(frame) }
            case .disconnect:
                transport.close()
            }
        }
    }

    // MARK: Transport events

    public func transportOpened() {
        edit { $0.connectionOpened(at: now) }
    }

    public func transportReceived(_ bytes: [UInt8]) {
        let encoding = read { $0.configuration.encoding }
        guard let message = try? Message(decoding: bytes, as: encoding) else { return }
        edit { engine in
            engine.receive(message, at: now)
            if engine.connectionState == .connected || engine.connectionState == .weak { failedAttempts = 0 }
        }
    }

    public func transportClosed() {
        let delay = lock.withLock { () -> Duration? in
            engine.connectionClosed(at: now)
            transport = nil
            guard running else { return nil }
            let exponent = min(failedAttempts, 16)
            failedAttempts += 1
            let backoff = min(backoffCap, backoffBase * (1 << exponent))
            return backoff * Double.random(in: 0.5...1)
        }
        guard let delay else { return }
        let milliseconds = Int(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        queue.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [weak self] in self?.connect() }
    }
}
