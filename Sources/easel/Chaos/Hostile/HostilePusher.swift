import EaselClient
import EaselClientLWS
import EaselLocking
import EaselModel
import EaselProtocol
import Foundation

/// An editor with bad intentions on one connection: it pushes what `next`
/// makes, one push at a time, and tallies how the server answered. The
/// grower makes entities until the document is full; the far-flung writer
/// makes positions beyond the canvas. Reconnects when the server closes it.
final class HostilePusher: TransportDelegate, Sendable {
    struct Tally: Sendable {
        var pushes = 0
        var acknowledgedOps = 0
        /// Error codes the server answered with, by code.
        var refusals: [UInt16: Int] = [:]
        var connections = 0

        func adding(_ other: Tally) -> Tally {
            Tally(
                pushes: pushes + other.pushes, acknowledgedOps: acknowledgedOps + other.acknowledgedOps,
                refusals: refusals.merging(other.refusals, uniquingKeysWith: +),
                connections: connections + other.connections)
        }
    }

    private struct State {
        var transport: (any WebSocketTransport)?
        /// Which connection the pushes are for: a timer of an earlier one
        /// finds it changed and stops its chain.
        var generation = 0
        var batch: UInt64 = 0
        var counter: UInt64 = 0
        var stopped = false
        var tally = Tally()
    }

    private let loop: ClientLoop
    private let address: WebSocketAddress
    private let document: DocumentName
    private let replica: ReplicaID
    /// Seconds between pushes: the refusal budget forgives one a second.
    private let interval: Double
    /// The ops of the next push, from the replica's next counter on.
    private let next: @Sendable (_ replica: ReplicaID, _ counter: UInt64) -> [Op]
    private let state = Locked(State())

    init(
        loop: ClientLoop, port: Int, document: DocumentName, replica: ReplicaID, interval: Double,
        next: @escaping @Sendable (ReplicaID, UInt64) -> [Op]
    ) throws {
        guard let address = WebSocketAddress("ws://127.0.0.1:\(port)") else {
            throw ChaosError("no WebSocket address for port \(port)")
        }
        self.loop = loop
        self.address = address
        self.document = document
        self.replica = replica
        self.interval = interval
        self.next = next
    }

    func start() {
        let transport = loop.transport(to: address, subprotocol: WireProtocol.binarySubprotocol)
        let started = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.transport = transport
            state.generation += 1
            state.tally.connections += 1
            return true
        }
        if started { transport.open(self) }
    }

    func stop() -> Tally {
        let (transport, tally) = state.withLock { state in
            state.stopped = true
            return (state.transport, state.tally)
        }
        transport?.close()
        return tally
    }

    var tally: Tally { state.withLock { $0.tally } }

    func transportOpened() {
        let hello = Hello(
            document: document, replica: replica,
            user: UserInfo(name: "hostile", initials: "H", color: Color(rawValue: 0xCC00_00FF)))
        send(.hello(hello))
    }

    func transportReceived(_ bytes: [UInt8]) {
        guard let message = try? Message(binary: bytes) else { return }
        switch message {
        case .welcome:
            pushNext(for: state.withLock { $0.generation })
        case .ack(let ack):
            let generation = state.withLock { state in
                state.tally.acknowledgedOps += Int(ack.count)
                return state.generation
            }
            pushLater(for: generation)
        case .error(let error):
            let generation = state.withLock { state in
                state.tally.refusals[error.code.rawValue, default: 0] += 1
                return state.generation
            }
            if error.batch != nil { pushLater(for: generation) }
        default:
            break
        }
    }

    func transportClosed() {
        let again = state.withLock { !$0.stopped }
        guard again else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { [self] in
            if state.withLock({ !$0.stopped }) { start() }
        }
    }

    private func pushLater(for generation: Int) {
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) { [self] in pushNext(for: generation) }
    }

    private func pushNext(for generation: Int) {
        let push = state.withLock { state -> Push? in
            guard !state.stopped, state.generation == generation else { return nil }
            state.batch += 1
            let ops = next(replica, state.counter + 1)
            state.counter = ops.map(\.lastCounter).max() ?? state.counter
            state.tally.pushes += 1
            return Push(batch: state.batch, ops: ops)
        }
        if let push { send(.push(push)) }
    }

    private func send(_ message: Message) {
        state.withLock { $0.transport }?.send(message.binaryEncoded())
    }
}

extension HostilePusher {
    /// The grower's ops a push: as many as a push may hold.
    static let growerOpsPerPush = 1000

    /// Entities, as many as a push holds, until the document is full (213).
    static func grower(
        loop: ClientLoop, port: Int, document: DocumentName, replica: ReplicaID
    ) throws -> HostilePusher {
        try HostilePusher(loop: loop, port: port, document: document, replica: replica, interval: 0.02) {
            replica, first in
            (0..<growerOpsPerPush).map { offset in
                let id = OpID(counter: first + UInt64(offset), replica: replica)
                let spot = Float((first + UInt64(offset)) % 100_000)
                return Op(
                    id: id, transaction: TransactionID(id),
                    action: .create(
                        .emoji, [.character("🌳"), .x(spot.truncatingRemainder(dividingBy: 3000)), .y(spot / 3000)]))
            }
        }
    }

    /// One op a second that moves an entity a billion units away: refused
    /// (108) every time, slowly enough that the refusal budget never closes
    /// the connection.
    static func farFlung(
        loop: ClientLoop, port: Int, document: DocumentName, replica: ReplicaID
    ) throws -> HostilePusher {
        try HostilePusher(loop: loop, port: port, document: document, replica: replica, interval: 1) {
            replica, first in
            let id = OpID(counter: first, replica: replica)
            return [
                Op(
                    id: id, transaction: TransactionID(id),
                    action: .create(.emoji, [.character("🛸"), .x(1e9), .y(-1e9)]))
            ]
        }
    }
}
