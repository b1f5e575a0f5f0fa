/// A stroke's samples as the chunks appended to it.
///
/// Conflicts are decided per sample index. Chunks are taken in their order
/// (by OpID; see `precedes`); a chunk that agrees with every sample it
/// overlaps among those taken before it is accepted — a duplicate, an
/// overlap or an extension — and one that disagrees at any index is set
/// aside whole. The visible samples are the indices from 0 that accepted
/// chunks cover without a gap; a chunk past a gap waits. Because the order
/// belongs to the chunks, not to their arrival, the state is a function of
/// the set of chunks.
///
/// Only a stroke's author appends to it, so the OpID order is the order the
/// author made its chunks: the first word on an index wins, as it does at
/// the server, which refuses a chunk that contradicts one it accepted.
struct StrokeSamples: Sendable {
    struct Chunk: Hashable, Sendable {
        var start: UInt32
        var samples: [StrokeSample]
        var stamp: OpID

        var sampleChunk: SampleChunk { SampleChunk(start: start, samples: samples) }

        /// The order chunks are taken in: by stamp, then — for two chunks
        /// with one stamp, which only a misbehaving peer makes — by start,
        /// length and the samples' bits, as every replica will.
        func precedes(_ other: Chunk) -> Bool {
            if stamp != other.stamp { return stamp < other.stamp }
            if start != other.start { return start < other.start }
            if samples.count != other.samples.count { return samples.count < other.samples.count }
            let bits = { (sample: StrokeSample) in sample.bitPatterns }
            return samples.lazy.flatMap(bits).lexicographicallyPrecedes(other.samples.lazy.flatMap(bits))
        }
    }

    /// Every chunk received, accepted or set aside, in the order they came:
    /// appending is O(1) whatever their stamps (`ordered` sorts when asked).
    private(set) var received: [Chunk] = []
    /// The stamps in `received`, so a new chunk is told from a repeat
    /// without scanning.
    private var stamps: Set<OpID> = []
    /// What the accepted chunks say, as disjoint runs.
    private(set) var accepted = SampleRuns()
    /// The last chunk in the order chunks are taken in.
    private var last: Chunk?

    /// Merges a chunk: `.applied` when accepted (with `waitsForGap` when it
    /// lies past a gap), `.superseded` when an earlier chunk contradicts it,
    /// `.duplicate` for a chunk already held.
    ///
    /// O(log r + chunk) for a chunk that agrees with every accepted sample,
    /// whatever its stamp: taking it in changes no other chunk's fate (it
    /// agrees with each of them); the same for one that comes after every
    /// chunk held. Only a chunk that contradicts an accepted one taken after
    /// it — which the server never commits — costs a rebuild in order,
    /// O(n log n).
    mutating func merge(_ chunk: Chunk) -> (MergeOutcome, waitsForGap: Bool) {
        if stamps.contains(chunk.stamp), received.contains(chunk) { return (.duplicate, false) }
        received.append(chunk)
        stamps.insert(chunk.stamp)
        let comesLast = last.map { $0.precedes(chunk) } ?? true
        if comesLast { last = chunk }
        let isAccepted: Bool
        if accepted.accept(chunk.sampleChunk) {
            isAccepted = true
        } else if comesLast {
            // Taken after every other chunk, it changes nobody's fate.
            isAccepted = false
        } else {
            var rebuilt = SampleRuns()
            var acceptedChunk = false
            for candidate in ordered {
                let took = rebuilt.accept(candidate.sampleChunk)
                if candidate == chunk { acceptedChunk = took }
            }
            accepted = rebuilt
            isAccepted = acceptedChunk
        }
        guard isAccepted else { return (.superseded, false) }
        return (.applied, chunk.sampleChunk.end > UInt64(accepted.contiguousCount))
    }

    /// The samples reachable from index 0, in order.
    var samples: [StrokeSample] { accepted.contiguousSamples }

    /// How many samples are reachable from index 0.
    var contiguousCount: UInt32 { accepted.contiguousCount }

    /// No chunk received: most entities are not strokes.
    var isEmpty: Bool { received.isEmpty }

    /// The chunks in the order they are taken in. O(n log n).
    var ordered: [Chunk] { received.sorted { $0.precedes($1) } }

    /// The chunks sorted by start index, then in the order they are taken
    /// in: the canonical encoding's order. O(n log n).
    var chunksByStart: [Chunk] {
        received.sorted { $0.start != $1.start ? $0.start < $1.start : $0.precedes($1) }
    }
}

/// Two replicas with the same chunks hold the same samples, whatever order
/// the chunks came in.
extension StrokeSamples: Hashable {
    static func == (lhs: StrokeSamples, rhs: StrokeSamples) -> Bool {
        // `last` and `stamps` follow from the chunks.
        lhs.received.count == rhs.received.count && lhs.ordered == rhs.ordered
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(received.count)
        hasher.combine(accepted)
    }
}

extension StrokeSample {
    /// The sample's bits, force absent as all ones: a total order for
    /// settling ties.
    var bitPatterns: [UInt32] {
        [x.bitPattern, y.bitPattern, time.bitPattern, force.map { $0.bitPattern } ?? UInt32.max]
    }
}
