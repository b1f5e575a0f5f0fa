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

    @Test("two different chunks at one start index resolve by the higher OpID, whatever the order")
    func conflictingChunksResolveByHigherOpID() {
        let head = append(2, at: 0, [sample(0, 0, 0)])
        let loser = append(3, at: 1, [sample(9, 9, 0.1), sample(9, 9, 0.2), sample(9, 9, 0.3)])
        let winner = append(4, at: 1, [sample(1, 1, 0.1)])
        let tail = append(5, at: 2, [sample(2, 2, 0.2)])
        var encodings: Set<[UInt8]> = []
        for permutation in permutations(of: [create, head, loser, winner, tail]) {
            let document = Document(applying: permutation)
            #expect(samples(of: document).map(\.x) == [0, 1, 2])
            encodings.insert(document.canonicalEncoding)
        }
        #expect(encodings.count == 1)
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
