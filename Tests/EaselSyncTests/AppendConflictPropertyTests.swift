import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// Overlapping stroke appends through the real room: whatever mix of
/// agreeing, extending and contradicting chunks the author pushes, in
/// whatever batches, every replica ends with the same samples, and those
/// samples are exactly what the acknowledged chunks say.
@Suite("Appends: conflicts per sample index")
struct AppendConflictPropertyTests {
    typealias F = RoomFixtures

    @Test(
        "any interleaving of overlapping, agreeing and conflicting chunks leaves every replica with the samples the acknowledged chunks say"
    )
    func everyReplicaHoldsTheAcknowledgedSamples() throws {
        var totals = AppendRunCounts()
        for seed in propertySeeds(count: 300, label: "append conflicts") {
            var run = try AppendRun(seed: seed)
            let failure = try run.play()
            totals.add(run.counts)
            if let failure {
                Issue.record(
                    "seed \(seed): \(failure). Replay with EASEL_SEED=\(seed) swift test --filter AppendConflictProperty")
                return
            }
        }
        print("append conflicts: \(totals)")
        if environment("EASEL_SEED") == nil {
            for (name, count) in totals.named {
                #expect(count > 0, "no \(name) in any run: the test no longer exercises them")
            }
        }
    }
}

struct AppendRunCounts: CustomStringConvertible {
    var acknowledgedChunks = 0
    var overlappingAcknowledged = 0
    var refusedPushes = 0
    var chunksPendingWhenVetted = 0

    mutating func add(_ other: AppendRunCounts) {
        acknowledgedChunks += other.acknowledgedChunks
        overlappingAcknowledged += other.overlappingAcknowledged
        refusedPushes += other.refusedPushes
        chunksPendingWhenVetted += other.chunksPendingWhenVetted
    }

    var named: [(String, Int)] {
        [
            ("acknowledged chunks", acknowledgedChunks),
            ("acknowledged chunks overlapping earlier ones", overlappingAcknowledged),
            ("refused pushes", refusedPushes), ("pushes vetted against uncommitted ones", chunksPendingWhenVetted),
        ]
    }

    var description: String { named.map { "\($0.0): \($0.1)" }.joined(separator: ", ") }
}

/// One seeded run: alice streams chunks of a stroke whose "true" samples
/// are fixed, some of them contradicting it, while bob watches.
private struct AppendRun {
    typealias F = RoomFixtures

    var random: SeededRandom
    let harness: ServerHarness
    let aliceConnection: ConnectionID
    let bobConnection: ConnectionID
    var counter: UInt64 = 2
    var truth: [StrokeSample]
    var counts = AppendRunCounts()

    init(seed: UInt64) throws {
        random = SeededRandom(seed: seed)
        // Refusals are what this test provokes: the budget that closes a
        // connection refused too often (ErrorTableTests) must not end a run.
        var configuration = ServerConfiguration()
        configuration.limits.refusedMessageAllowance = 10_000
        harness = try ServerHarness(configuration: configuration)
        (aliceConnection, _) = harness.join(alice, as: "alice")
        (bobConnection, _) = harness.join(bob, as: "bob")
        harness.pushCommitted([F.createStroke()], batch: 0, from: aliceConnection)
        let length = Int.random(in: 4...14, using: &random)
        truth = (0..<length).map { sample(Float($0), Float($0 * 2), Float($0) / 60) }
    }

    /// Pushes, commits, delivers; returns what went wrong, if anything.
    mutating func play() throws -> String? {
        var acknowledged: [Op] = []
        var broadcast: [Op] = []
        var inFlight: [UInt64: [Op]] = [:]
        var refused: [[Op]] = []
        var batch: UInt64 = 1
        for _ in 0..<Int.random(in: 6...18, using: &random) {
            let ops = (0..<Int.random(in: 1...3, using: &random)).map { _ in chunk() }
            inFlight[batch] = ops
            if harness.storage.pendingCount > 0 { counts.chunksPendingWhenVetted += 1 }
            let transcript = harness.push(ops, batch: batch, from: aliceConnection)
            for error in transcript.errors(to: aliceConnection) {
                guard error.code == .appendConflict, let refusedBatch = error.batch, let ops = inFlight[refusedBatch]
                else { return "unexpected error \(error)" }
                refused.append(ops)
                inFlight[refusedBatch] = nil
                counts.refusedPushes += 1
            }
            batch += 1
            if random.chance(0.5) {
                collect(harness.commit(), acknowledged: &acknowledged, broadcast: &broadcast, inFlight: &inFlight)
            }
        }
        collect(harness.commit(), acknowledged: &acknowledged, broadcast: &broadcast, inFlight: &inFlight)
        guard inFlight.isEmpty else { return "pushes \(inFlight.keys.sorted()) were neither acknowledged nor refused" }
        guard acknowledged.map(\.id) == broadcast.map(\.id) else {
            return "bob was sent \(broadcast.count) chunks, alice had \(acknowledged.count) acknowledged"
        }

        // Replicas receive the committed ops in any order, with repeats; a
        // late joiner gets a snapshot.
        let create = F.createStroke()
        var replicas: [Document] = []
        for _ in 0..<3 {
            var ops = [create] + acknowledged
            ops += ops.filter { _ in random.chance(0.3) }
            ops.shuffle(using: &random)
            replicas.append(Document(applying: ops))
        }
        let (carolConnection, joined) = harness.join(carol, as: "carol")
        guard case .snapshot(let snapshot)? = joined.welcome(to: carolConnection)?.content else {
            return "the late joiner got no snapshot"
        }
        replicas.append(Document(applying: snapshot.shuffled(using: &random)))
        let reference = samples(in: replicas[0])
        for (index, replica) in replicas.enumerated().dropFirst() where samples(in: replica) != reference {
            return "replica \(index) holds \(samples(in: replica).count) samples, replica 0 \(reference.count)"
        }

        // Every acknowledged sample is what the stroke shows at its index,
        // and the stroke reaches as far as the acknowledged chunks cover.
        var covered = 0
        var coverage = Set<Int>()
        for op in acknowledged {
            guard case .append(_, let start, let chunk) = op.action else { continue }
            for (offset, value) in chunk.enumerated() {
                let index = Int(start) + offset
                coverage.insert(index)
                if index < reference.count, reference[index] != value {
                    return "acknowledged chunk \(op.id) says \(value) at \(index), the stroke shows \(reference[index])"
                }
            }
        }
        while coverage.contains(covered) { covered += 1 }
        guard reference.count == covered else {
            return "acknowledged chunks cover 0..<\(covered), the stroke shows \(reference.count) samples"
        }

        // A refusal is only ever for a real contradiction: with a chunk
        // acknowledged, or with another chunk of the same push.
        for ops in refused where !ops.contains(where: { op in (acknowledged + ops).contains { disagree(op, $0) } }) {
            return "a push that contradicts nothing was refused: \(ops.map(\.id))"
        }
        return nil
    }

    /// A chunk of 1–4 samples at a random start within the stroke: most
    /// agree with the truth (duplicates, overlaps, extensions), some
    /// contradict it at one index.
    mutating func chunk() -> Op {
        let start = Int.random(in: 0..<truth.count, using: &random)
        let count = min(Int.random(in: 1...4, using: &random), truth.count - start)
        var samples = Array(truth[start..<start + count])
        if random.chance(0.25) {
            let wrong = Int.random(in: samples.indices, using: &random)
            samples[wrong] = sample(-1, -1, Float(counter))
        }
        counter += 1
        return op(counter, alice, .append(F.stroke, start: UInt32(start), samples: samples))
    }

    mutating func collect(
        _ transcript: Transcript, acknowledged: inout [Op], broadcast: inout [Op], inFlight: inout [UInt64: [Op]]
    ) {
        for message in transcript.messages(to: aliceConnection) {
            guard case .ack(let ack) = message, let ops = inFlight.removeValue(forKey: ack.batch) else { continue }
            for op in ops {
                guard case .append(_, let start, let chunk) = op.action else { continue }
                if acknowledged.contains(where: { earlier in
                    guard case .append(_, let earlierStart, let earlierChunk) = earlier.action else { return false }
                    return start < earlierStart + UInt32(earlierChunk.count) && earlierStart < start + UInt32(chunk.count)
                }) {
                    counts.overlappingAcknowledged += 1
                }
                acknowledged.append(op)
                counts.acknowledgedChunks += 1
            }
        }
        for message in transcript.messages(to: bobConnection) {
            if case .ops(let ops) = message { broadcast += ops.map(\.op) }
        }
    }

    /// Whether two different chunks say different things at some index.
    func disagree(_ op: Op, _ other: Op) -> Bool {
        guard op.id != other.id, case .append(_, let start, let chunk) = op.action,
            case .append(_, let otherStart, let otherChunk) = other.action
        else { return false }
        return chunk.indices.contains { offset in
            let otherOffset = Int(start) + offset - Int(otherStart)
            return otherChunk.indices.contains(otherOffset) && otherChunk[otherOffset] != chunk[offset]
        }
    }

    func samples(in document: Document) -> [StrokeSample] {
        guard case .stroke(let stroke)? = document[F.stroke]?.content else { return [] }
        return stroke.samples
    }
}
