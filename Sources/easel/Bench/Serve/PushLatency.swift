import EaselModel
import EaselProtocol
import Foundation

/// Many writers, each pushing one property set at a steady rate; every
/// writer is also a reader of everyone else's. Latency is push to receipt:
/// from the moment a writer hands its push to the socket to the moment
/// another client has read the op, through commit and delivery.
struct PushLatency {
    var writers: Int
    var rate: Double
    var seconds: Double
    /// Receipts in the first second are left out (rooms warming up).
    var warmup = 1.0

    struct Sample {
        var receiptMilliseconds: [Double]
        var ackMilliseconds: [Double]
        var deliveriesPerSecond: Double
        var serverCPU: Double
        var serverResidentBytes: Int
        var loadCPU: Double
    }

    func run(port: Int, server: ServedProcess, document: String) throws -> Sample {
        let sockets = try (0..<writers).map { _ in try LoadSocket(port: port, subprotocol: "easel.v1") }
        let firstReplica: UInt64 = 0xD000
        try LoadProtocol.join(sockets, document: document, firstReplica: firstReplica)
        var clocks = (0..<writers).map { LamportClock(replica: ReplicaID(rawValue: firstReplica + UInt64($0))) }
        var entities: [EntityID] = []
        for index in 0..<writers {
            var transaction = try clocks[index].beginTransaction()
            entities.append(try transaction.create(.emoji, [.character("🙂")]))
            sockets[index].send(Message.push(Push(batch: 0, ops: clocks[index].commit(transaction))).binaryEncoded())
        }
        // Sent at, by writer and counter; a counter's slot is its offset
        // from the writer's first timed op.
        let firstCounter = clocks.map { $0.counter + 1 }
        var sentAt = [[UInt64]](repeating: [], count: writers)
        var receipts: [Double] = []
        var acks: [Double] = []
        var delivered = 0
        var loop = LoadLoop(sockets)
        let period = UInt64(1e9 / rate)
        let start = DispatchTime.now().uptimeNanoseconds
        let measuredFrom = start + UInt64(warmup * 1e9)
        let end = start + UInt64(seconds * 1e9)
        var due = (0..<writers).map { start + period * UInt64($0) / UInt64(writers) }
        let cpuBefore = (server: server.cpuSeconds, load: processCPUSeconds())
        var random = SplitMix64(seed: 11)

        while true {
            var now = DispatchTime.now().uptimeNanoseconds
            if now >= end { break }
            for index in 0..<writers where due[index] <= now {
                var transaction = try clocks[index].beginTransaction()
                try transaction.set(.x(Float(random.next() % 1000)), of: entities[index])
                let ops = clocks[index].commit(transaction)
                let batch = UInt64(sentAt[index].count + 1)
                sockets[index].send(Message.push(Push(batch: batch, ops: ops)).binaryEncoded())
                sentAt[index].append(DispatchTime.now().uptimeNanoseconds)
                due[index] += period
            }
            now = DispatchTime.now().uptimeNanoseconds
            let nextDue = due.min() ?? now
            // Rounded up: a push sent a little late is timed from when it
            // was sent, while a loop that polls with 0 would spin.
            let wait = nextDue > now ? Int32((nextDue - now + 999_999) / 1_000_000) : 0
            try loop.poll(milliseconds: wait) { index in
                let open = sockets[index].receive { bytes in
                    let tag = LoadProtocol.tag(of: bytes)
                    guard tag == MessageType.ops.rawValue || tag == MessageType.ack.rawValue else { return }
                    let at = DispatchTime.now().uptimeNanoseconds
                    guard at >= measuredFrom else { return }
                    if tag == MessageType.ack.rawValue {
                        guard case .ack(let ack)? = try? Message(decoding: Array(bytes), as: .binary),
                            ack.batch >= 1, Int(ack.batch) <= sentAt[index].count
                        else { return }
                        acks.append(Double(at - sentAt[index][Int(ack.batch) - 1]) / 1e6)
                        return
                    }
                    LoadProtocol.setOfXIDs(in: bytes) { replica, counter in
                        let writer = Int(truncatingIfNeeded: replica &- firstReplica)
                        guard writer >= 0, writer < writers else { return }
                        let slot = Int(counter) - Int(firstCounter[writer])
                        guard slot >= 0, slot < sentAt[writer].count else { return }
                        receipts.append(Double(at - sentAt[writer][slot]) / 1e6)
                        delivered += 1
                    }
                }
                guard open else { throw BenchError("the server closed writer \(index)") }
            }
        }
        let measured = seconds - warmup
        return Sample(
            receiptMilliseconds: receipts, ackMilliseconds: acks, deliveriesPerSecond: Double(delivered) / measured,
            serverCPU: (server.cpuSeconds - cpuBefore.server) / seconds, serverResidentBytes: server.residentBytes,
            loadCPU: (processCPUSeconds() - cpuBefore.load) / seconds)
    }
}

/// The p-th percentile (0–100) of `values`, nearest rank.
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}
