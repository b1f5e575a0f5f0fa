import EaselModel
import EaselProtocol
import Foundation

/// One writer sends as fast as the server takes it; readers count what
/// they receive. A window keeps the writer at most `window` deliveries
/// ahead of the slowest reader, so nothing queues without bound on either
/// side and the rate is what the server sustains.
struct Saturation {
    var readers: Int
    var seconds: Double
    var window: Int

    struct Sample {
        /// Units (ops, or relayed messages) times recipients, a second.
        var deliveriesPerSecond: Double
        /// Units the writer got through, a second.
        var unitsPerSecond: Double
        var serverCPU: Double
        var loadCPU: Double
    }

    /// A writer's message and how many units (ops) it carries.
    typealias Payloads = (Int) -> (bytes: [UInt8], units: Int)?

    /// Runs the timed phase: `payload(i)` is the writer's i-th message;
    /// `received` tells how many units a reader has so far.
    func run(
        writer: LoadSocket, readers sockets: [LoadSocket], server: ServedProcess, payload: Payloads,
        receive: (LoadSocket, inout Int) throws -> Bool, writerReceive: (LoadSocket) throws -> Bool
    ) throws -> Sample {
        var loop = LoadLoop([writer] + sockets)
        var received = [Int](repeating: 0, count: sockets.count)
        var sent = 0
        var next = 0
        var exhausted = false
        let cpuBefore = (server: server.cpuSeconds, load: processCPUSeconds())
        let start = ContinuousClock.now
        let sendingEnds = start + .milliseconds(Int(seconds * 1000))
        var lastReceipt = start
        while true {
            let slowest = received.min() ?? 0
            let now = ContinuousClock.now
            if now < sendingEnds, !exhausted {
                while sent - slowest < window {
                    guard let message = payload(next) else {
                        exhausted = true
                        break
                    }
                    writer.send(message.bytes)
                    sent += message.units
                    next += 1
                }
            } else if slowest >= sent {
                break
            } else if now - sendingEnds > .seconds(30) {
                throw BenchError("the readers stalled at \(slowest) of \(sent)")
            }
            try loop.poll(milliseconds: 1) { index in
                if index == 0 {
                    guard try writerReceive(writer) else { throw BenchError("the server closed the writer") }
                    return
                }
                guard try receive(sockets[index - 1], &received[index - 1]) else {
                    throw BenchError("the server closed a reader")
                }
                lastReceipt = ContinuousClock.now
            }
        }
        let elapsed = (lastReceipt - start).seconds
        return Sample(
            deliveriesPerSecond: Double(received.reduce(0, +)) / elapsed, unitsPerSecond: Double(sent) / elapsed,
            serverCPU: (server.cpuSeconds - cpuBefore.server) / elapsed,
            loadCPU: (processCPUSeconds() - cpuBefore.load) / elapsed)
    }

    // MARK: The bare relay

    /// 64-byte messages through the relay; every reader receives 66-byte
    /// frames, so counting bytes counts messages.
    func relay(port: Int, server: ServedProcess) throws -> Sample {
        let writer = try LoadSocket(port: port, subprotocol: nil)
        let sockets = try (0..<readers).map { _ in try LoadSocket(port: port, subprotocol: nil) }
        let message = [UInt8](repeating: 0x42, count: 64)
        return try run(
            writer: writer, readers: sockets, server: server, payload: { _ in (message, 1) },
            receive: { socket, count in
                let open = socket.drain()
                count = socket.receivedBytes / 66
                return open
            },
            writerReceive: { $0.drain() })
    }

    // MARK: pycrdt-websocket

    /// Yjs updates through pycrdt-websocket: `updates[0]` creates the
    /// entities and goes before the clock starts; each later one sets
    /// `setsPerUpdate` numbers. Every client of the room gets every update
    /// as a sync message of type update (0, 2), which readers count.
    func pycrdt(
        port: Int, server: ServedProcess, room: String, updates: [[UInt8]], setsPerUpdate: Int
    ) throws -> Sample {
        guard let creation = updates.first else { throw BenchError("no updates to send") }
        let path = "/" + room
        let writer = try LoadSocket(port: port, subprotocol: nil, path: path)
        let sockets = try (0..<readers).map { _ in try LoadSocket(port: port, subprotocol: nil, path: path) }
        func isUpdate(_ message: UnsafeRawBufferPointer) -> Bool {
            message.count > 2 && message[0] == 0 && message[1] == 2
        }
        writer.send(creation)
        var created = [Bool](repeating: false, count: sockets.count)
        var loop = LoadLoop([writer] + sockets)
        let deadline = Date().addingTimeInterval(30)
        while created.contains(false) {
            guard Date() < deadline else { throw BenchError("the readers did not receive the entities") }
            try loop.poll(milliseconds: 100) { index in
                guard index > 0 else {
                    _ = writer.drain()
                    return
                }
                _ = sockets[index - 1].receive { if isUpdate($0) { created[index - 1] = true } }
            }
        }
        return try run(
            writer: writer, readers: sockets, server: server,
            payload: { $0 + 1 < updates.count ? (updates[$0 + 1], setsPerUpdate) : nil },
            receive: { socket, count in
                socket.receive { if isUpdate($0) { count += setsPerUpdate } }
            },
            writerReceive: { $0.drain() })
    }

    // MARK: Easel

    /// Pushes of `opsPerPush` property sets on 100 entities, through
    /// `easel serve`: decoded, vetted, committed to SQLite, acknowledged and
    /// delivered. Readers count ops from the op batch header.
    func easel(port: Int, server: ServedProcess, document: String, opsPerPush: Int, maxOps: Int) throws -> Sample {
        let writer = try LoadSocket(port: port, subprotocol: "easel.v1")
        let sockets = try (0..<readers).map { _ in try LoadSocket(port: port, subprotocol: "easel.v1") }
        try LoadProtocol.join([writer], document: document, firstReplica: 0xB000)
        try LoadProtocol.join(sockets, document: document, firstReplica: 0xC000)

        var clock = LamportClock(replica: ReplicaID(rawValue: 0xB000))
        var creation = try clock.beginTransaction()
        let entities = try (0..<100).map { _ in try creation.create(.shape, [.shape(.rectangle)]) }
        let creates = clock.commit(creation)
        writer.send(Message.push(Push(batch: 1, ops: creates)).binaryEncoded())
        try awaitOps(creates.count, on: sockets)

        // Encoded before the clock starts: the writer's cost is the socket.
        var random = SplitMix64(seed: 7)
        var pushes: [[UInt8]] = []
        for batch in 0..<maxOps / opsPerPush {
            var transaction = try clock.beginTransaction()
            for _ in 0..<opsPerPush {
                let entity = entities[Int(random.next() % UInt64(entities.count))]
                try transaction.set(.x(Float(random.next() % 4000)), of: entity)
            }
            pushes.append(Message.push(Push(batch: UInt64(batch + 2), ops: clock.commit(transaction))).binaryEncoded())
        }
        return try run(
            writer: writer, readers: sockets, server: server,
            payload: { $0 < pushes.count ? (pushes[$0], opsPerPush) : nil },
            receive: { socket, count in
                socket.receive { count += LoadProtocol.opCount(of: $0) }
            },
            writerReceive: { socket in
                var refusal: String?
                let open = socket.receive { message in
                    if LoadProtocol.tag(of: message) == MessageType.error.rawValue {
                        refusal = "\((try? Message(decoding: Array(message), as: .binary)).map { "\($0)" } ?? "?")"
                    }
                }
                if let refusal { throw BenchError("the server refused a push: \(refusal)") }
                return open
            })
    }

    /// Waits until every reader has received `count` ops.
    private func awaitOps(_ count: Int, on sockets: [LoadSocket]) throws {
        var received = [Int](repeating: 0, count: sockets.count)
        var loop = LoadLoop(sockets)
        let deadline = Date().addingTimeInterval(30)
        while received.contains(where: { $0 < count }) {
            guard Date() < deadline else { throw BenchError("the readers did not receive the entities") }
            try loop.poll(milliseconds: 100) { index in
                _ = sockets[index].receive { received[index] += LoadProtocol.opCount(of: $0) }
            }
        }
    }
}
