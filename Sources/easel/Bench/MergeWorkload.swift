import ArgumentParser
import EaselModel
import EaselProtocol

/// The canvas workload `easel bench merge` merges, the same as
/// Benchmarks/peers/loro_merge.py gives Loro: entities created by one
/// replica, then random writes of x, y, scale or rotation by several
/// concurrent writers, 100 writes a transaction (one gesture).
struct MergeWorkload {
    /// The document every receiver starts from: the entities, created.
    let base: Document
    /// The writers' ops as the server would send them: `ops` messages of
    /// 10,000 positioned ops, writers interleaved.
    let messages: [[UInt8]]
    let ops: [Op]

    init(entities entityCount: Int, sets: Int, writers: Int, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var creator = LamportClock(replica: ReplicaID(rawValue: 1))
        var creation = try creator.beginTransaction()
        let entities = try (0..<entityCount).map { _ in try creation.create(.shape, [.shape(.rectangle)]) }
        var base = Document()
        for op in creator.commit(creation) { base.apply(op) }
        self.base = base

        let fields: [(Float) -> Field] = [{ .x($0) }, { .y($0) }, { .scale($0) }, { .rotation($0) }]
        var streams: [[Op]] = []
        for writer in 0..<writers {
            var clock = LamportClock(replica: ReplicaID(rawValue: 100 + UInt64(writer)))
            clock.observe(base.highestCounter)
            var stream: [Op] = []
            stream.reserveCapacity(sets / writers)
            var transaction = try clock.beginTransaction()
            for index in 0..<sets / writers {
                let entity = entities[Int(random.next() % UInt64(entities.count))]
                let field = fields[Int(random.next() % 4)](Float(Int(random.next() % 4_000_000)) / 1000 - 2000)
                try transaction.set(field, of: entity)
                if index % 100 == 99 {
                    stream += clock.commit(transaction)
                    transaction = try clock.beginTransaction()
                }
            }
            stream += clock.commit(transaction)
            streams.append(stream)
        }
        var interleaved: [Op] = []
        for start in stride(from: 0, to: streams.map(\.count).max() ?? 0, by: 100) {
            for stream in streams where start < stream.count {
                interleaved += stream[start..<min(start + 100, stream.count)]
            }
        }
        ops = interleaved
        var position: UInt64 = 0
        messages = stride(from: 0, to: interleaved.count, by: 10_000).map { start in
            let chunk = interleaved[start..<min(start + 10_000, interleaved.count)].map { op in
                position += 1
                return PositionedOp(position: position, op: op)
            }
            return Message.ops(chunk).binaryEncoded()
        }
    }
}

extension MergeWorkload {
    /// The median of `passes` timed passes after `warmUps` untimed ones, as
    /// the WebAssembly side times itself (`easel bench wasm`), so both are
    /// timed in their steady state.
    func timeDecodeAndApply(passes: Int, warmUps: Int) throws -> (seconds: Double, hash: StateHash) {
        var hash = try timeDecodeAndApply().hash
        for _ in 1..<max(warmUps, 1) { hash = try timeDecodeAndApply().hash }
        var timings: [Double] = []
        for _ in 0..<passes {
            let pass = try timeDecodeAndApply()
            timings.append(pass.seconds)
            hash = pass.hash
        }
        return (median(timings), hash)
    }

    /// Decodes every message as a receiver merges it and applies it onto
    /// the base, timed; the seconds and the state reached.
    func timeDecodeAndApply() throws -> (seconds: Double, hash: StateHash) {
        var reader = OpsMessageReader()
        var document = base
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            for bytes in messages {
                guard try reader.read(bytes) else { throw ValidationError("not an ops message") }
                document.apply(reader.ops)
            }
        }
        precondition(document.highestCounter > base.highestCounter)
        return (elapsed.seconds, document.stateHash)
    }

    /// The state every receiver must reach: the ops applied one by one.
    func stateApplyingEachOp() -> StateHash {
        var document = base
        for index in ops.indices { document.apply(ops[index]) }
        return document.stateHash
    }
}
