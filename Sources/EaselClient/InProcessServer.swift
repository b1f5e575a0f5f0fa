import EaselModel
import EaselProtocol
import EaselSync
import Foundation

/// The sans-IO server in this process, reached through transports that skip
/// the network: sessions in tests and demos run exactly as over sockets,
/// messages encoded and decoded, with no port and no thread per connection.
/// Unchecked: everything but `queue` is touched only on `queue`.
public final class InProcessServer: @unchecked Sendable {
    private let queue = DispatchQueue(label: "easel.in-process-server")
    // On `queue` only:
    private let server: SyncServer
    private let storage: any RoomStorage
    private var links: [ConnectionID: InProcessTransport] = [:]
    private var nextConnection: UInt64 = 1
    private let timer: DispatchSourceTimer
    private let clock: HostClock

    public init(
        storage: any RoomStorage = InMemoryRoomStorage(commitsImmediately: true), clock: HostClock = .system
    ) {
        server = SyncServer()
        self.storage = storage
        self.clock = clock
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            server.tick(at: clock.now)
            pump()
        }
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    /// A transport to this server, speaking `encoding`.
    public func transport(encoding: WireEncoding) -> any WebSocketTransport {
        InProcessTransport(server: self, encoding: encoding)
    }

    // MARK: On the queue

    fileprivate func connect(_ transport: InProcessTransport) {
        queue.async { [self] in
            let id = ConnectionID(rawValue: nextConnection)
            nextConnection += 1
            links[id] = transport
            transport.id = id
            server.open(id, at: clock.now)
            transport.delegate?.transportOpened()
        }
    }

    fileprivate func receive(_ bytes: [UInt8], from transport: InProcessTransport) {
        queue.async { [self] in
            guard let id = transport.id, links[id] != nil else { return }
            do throws(DecodeError) {
                server.receive(try Message(decoding: bytes, as: transport.encoding), from: id, at: clock.now)
            } catch {
                server.refuse(error, from: id, at: clock.now)
            }
            pump()
        }
    }

    fileprivate func disconnect(_ transport: InProcessTransport) {
        queue.async { [self] in
            guard let id = transport.id, links.removeValue(forKey: id) != nil else { return }
            server.close(id, at: clock.now)
            transport.delegate?.transportClosed()
            pump()
        }
    }

    private func pump() {
        for output in server.takeOutputs() {
            switch output {
            case .send(let message, let recipients):
                var frames: [WireEncoding: [[UInt8]]] = [:]
                for id in recipients {
                    guard let link = links[id] else { continue }
                    let encoded = frames[link.encoding] ?? message.wireFrames(as: link.encoding)
                    frames[link.encoding] = encoded
                    for frame in encoded { link.delegate?.transportReceived(frame) }
                }
            case .close(let id, _):
                if let link = links.removeValue(forKey: id) {
                    server.close(id, at: clock.now)
                    link.delegate?.transportClosed()
                }
            case .load, .warm, .append, .unloaded:
                _ = storage.perform(output) { [self] completion in
                    queue.async {
                        completion.deliver(to: self.server, at: self.clock.now)
                        self.pump()
                    }
                }
            }
        }
    }
}

/// A connection to an `InProcessServer`. Unchecked: `id` and `delegate`
/// are set on the server's queue only.
private final class InProcessTransport: WebSocketTransport, @unchecked Sendable {
    unowned let server: InProcessServer
    let encoding: WireEncoding
    // Set on the server's queue only.
    var id: ConnectionID?
    var delegate: (any TransportDelegate)?

    init(server: InProcessServer, encoding: WireEncoding) {
        self.server = server
        self.encoding = encoding
    }

    func open(_ delegate: any TransportDelegate) {
        self.delegate = delegate
        server.connect(self)
    }

    func send(_ message: [UInt8]) {
        server.receive(message, from: self)
    }

    func close() {
        server.disconnect(self)
    }
}
