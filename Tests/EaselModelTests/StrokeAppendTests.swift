import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Stroke appends")
struct StrokeAppendTests {
    let create = op(1, alice, .create(.stroke, [.tool(.pen), .weight(3)]))
    var stroke: EntityID { create.entity }

    func append(_ counter: UInt64, at start: UInt32, _ samples: [StrokeSample], by replica: ReplicaID = alice) -> Op {
        op(counter, replica, .append(stroke, start: start, samples: samples))
    }

    func samples(of document: Document) -> [StrokeSample] {
        guard case .stroke(let content)? = document[stroke]?.content else { return [] }
        return content.samples
    }

    @Test("chunks delivered in any order give the same stroke")
    func outOfOrderChunksGiveTheSameStroke() {
        let chunks = [
            append(2, at: 0, [sample(0, 0, 0), sample(1, 1, 0.01)]),
            append(3, at: 2, [sample(2, 2, 0.02)]),
            append(4, at: 3, [sample(3, 3, 0.03), sample(4, 4, 0.04), sample(5, 5, 0.05)]),
        ]
        let expected = Document(applying: [create] + chunks)
        #expect(samples(of: expected).map(\.x) == [0, 1, 2, 3, 4, 5])
        for permutation in permutations(of: [create] + chunks) {
            #expect(Document(applying: permutation).canonicalEncoding == expected.canonicalEncoding)
        }
    }

    @Test("a chunk ahead of a gap waits until the gap fills")
    func chunkAheadOfAGapWaits() {
        var document = Document(applying: [create])
        #expect(document.apply(append(3, at: 2, [sample(2, 2, 0.02)])) == .waitingForGap)
        #expect(samples(of: document).isEmpty)
        #expect(document.apply(append(2, at: 0, [sample(0, 0, 0), sample(1, 1, 0.01)])) == .applied)
        #expect(samples(of: document).map(\.x) == [0, 1, 2])
    }

    @Test("a repeated chunk changes nothing")
    func repeatedChunkChangesNothing() {
        let chunk = append(2, at: 0, [sample(0, 0, 0)])
        var document = Document(applying: [create, chunk])
        let before = document.canonicalEncoding
        #expect(document.apply(chunk) == .duplicate)
        #expect(document.canonicalEncoding == before)
    }

    @Test("a chunk that contradicts an earlier chunk at any index is set aside whole, whatever the order")
    func contradictingChunkIsSetAsideWhole() {
        let head = append(2, at: 0, [sample(0, 0, 0), sample(1, 1, 0.1)])
        let contradicting = append(3, at: 1, [sample(9, 9, 0.1), sample(9, 9, 0.2)])
        let tail = append(4, at: 2, [sample(2, 2, 0.2)])
        var encodings: Set<[UInt8]> = []
        for permutation in permutations(of: [create, head, contradicting, tail]) {
            let document = Document(applying: permutation)
            #expect(samples(of: document).map(\.x) == [0, 1, 2])
            encodings.insert(document.canonicalEncoding)
        }
        #expect(encodings.count == 1)
        var document = Document(applying: [create, head])
        #expect(document.apply(contradicting) == .superseded)
    }

    @Test("a chunk that agrees with every sample it overlaps extends the stroke, whatever the order")
    func agreeingOverlapExtendsTheStroke() {
        let head = append(2, at: 0, [sample(0, 0, 0), sample(1, 1, 0.1)])
        let overlapping = append(3, at: 1, [sample(1, 1, 0.1), sample(2, 2, 0.2)])
        let longer = append(4, at: 0, [sample(0, 0, 0), sample(1, 1, 0.1), sample(2, 2, 0.2), sample(3, 3, 0.3)])
        for permutation in permutations(of: [create, head, overlapping, longer]) {
            #expect(samples(of: Document(applying: permutation)).map(\.x) == [0, 1, 2, 3])
        }
        var document = Document(applying: [create, head])
        #expect(document.apply(overlapping) == .applied)
        #expect(samples(of: document).map(\.x) == [0, 1, 2])
    }

    @Test("the earlier of two chunks that contradict each other wins, even when it arrives last")
    func earlierChunkWinsWhenItArrivesLast() {
        let later = append(5, at: 0, [sample(9, 9, 0)])
        let earlier = append(3, at: 0, [sample(0, 0, 0), sample(1, 1, 0.1)])
        var document = Document(applying: [create, later])
        #expect(samples(of: document).map(\.x) == [9])
        #expect(document.apply(earlier) == .applied)
        #expect(samples(of: document).map(\.x) == [0, 1])
    }

    @Test("any set of overlapping, agreeing and conflicting chunks, delivered in any order, gives every replica the samples the per-index rule says")
    func chunkSetsConvergeOnThePerIndexRule() {
        for seed in propertySeeds(count: 500, label: "stroke chunks") {
            var random = SeededRandom(seed: seed)
            let truth = (0..<12).map { sample(Float($0), 0, Float($0) / 60) }
            var chunks: [Op] = []
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                let start = Int.random(in: 0..<truth.count, using: &random)
                var values = Array(truth[start..<min(truth.count, start + Int.random(in: 1...5, using: &random))])
                if random.chance(0.3) { values[Int.random(in: values.indices, using: &random)] = sample(-1, -1, 0) }
                // A repeated counter now and then: two chunks with one OpID.
                let counter = UInt64(Int.random(in: 2...14, using: &random))
                chunks.append(append(counter, at: UInt32(start), values))
            }
            let expected = perIndexRule(chunks)
            var encodings: Set<[UInt8]> = []
            for _ in 0..<4 {
                var delivery = [create] + chunks + chunks.filter { _ in random.chance(0.3) }
                delivery.shuffle(using: &random)
                let document = Document(applying: delivery)
                encodings.insert(document.canonicalEncoding)
                #expect(samples(of: document) == expected, "seed \(seed)")
                #expect(Document(applying: document.snapshotOps).canonicalEncoding == document.canonicalEncoding)
            }
            #expect(encodings.count == 1, "seed \(seed): replicas diverged")
        }
    }

    /// The rule written out plainly: take distinct chunks in OpID order
    /// (then start, length, bits), keep each that agrees with every sample
    /// kept so far, and show the samples from index 0 up to the first gap.
    private func perIndexRule(_ ops: [Op]) -> [StrokeSample] {
        let bits = { (values: [StrokeSample]) in
            values.flatMap { [$0.x.bitPattern, $0.y.bitPattern, $0.time.bitPattern, $0.force?.bitPattern ?? .max] }
        }
        var chunks: [(id: OpID, start: Int, samples: [StrokeSample])] = []
        for op in ops {
            guard case .append(_, let start, let values) = op.action,
                !chunks.contains(where: { $0.id == op.id && $0.start == Int(start) && $0.samples == values })
            else { continue }
            chunks.append((op.id, Int(start), values))
        }
        chunks.sort { a, b in
            if a.id != b.id { return a.id < b.id }
            if a.start != b.start { return a.start < b.start }
            if a.samples.count != b.samples.count { return a.samples.count < b.samples.count }
            return bits(a.samples).lexicographicallyPrecedes(bits(b.samples))
        }
        var kept: [Int: StrokeSample] = [:]
        for chunk in chunks {
            let agrees = chunk.samples.enumerated().allSatisfy { offset, value in
                kept[chunk.start + offset].map { $0 == value } ?? true
            }
            guard agrees else { continue }
            for (offset, value) in chunk.samples.enumerated() { kept[chunk.start + offset] = value }
        }
        var result: [StrokeSample] = []
        while let next = kept[result.count] { result.append(next) }
        return result
    }

    @Test("only the stroke's author may append to it")
    func onlyTheAuthorAppends() {
        var document = Document(applying: [create])
        let intruder = append(2, at: 0, [sample(0, 0, 0)], by: bob)
        #expect(document.apply(intruder) == .refused(.notStrokeAuthor))
        #expect(throws: ModelError.notStrokeAuthor) { try document.validate(intruder) }
        #expect(samples(of: document).isEmpty)
    }

    @Test("an append that arrives before the stroke's create is kept")
    func appendBeforeCreateIsKept() {
        var document = Document()
        #expect(document.apply(append(2, at: 0, [sample(7, 7, 0)])) == .appliedBeforeCreate)
        document.apply(create)
        #expect(samples(of: document).map(\.x) == [7])
    }

    @Test("an empty or over-long chunk is refused by validation")
    func malformedChunksAreRefused() {
        let document = Document(applying: [create])
        #expect(throws: ModelError.self) { try document.validate(append(2, at: 0, [])) }
        let tooMany = [StrokeSample](repeating: sample(0, 0, 0), count: ModelLimits.samplesPerAppend + 1)
        #expect(throws: ModelError.self) { try document.validate(append(2, at: 0, tooMany)) }
        #expect(throws: ModelError.self) { try document.validate(append(2, at: UInt32.max, [sample(0, 0, 0)])) }
        #expect(throws: ModelError.self) { try document.validate(append(2, at: 0, [sample(.nan, 0, 0)])) }
    }
}
