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
struct StrokeSamples: Hashable, Sendable {
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

    /// Every chunk received, accepted or set aside, in `precedes` order.
    private(set) var chunks: [Chunk] = []
    /// What the accepted chunks say, as disjoint runs.
    private(set) var accepted = SampleRuns()

    /// Merges a chunk: `.applied` when accepted (with `waitsForGap` when it
    /// lies past a gap), `.superseded` when an earlier chunk contradicts it,
    /// `.duplicate` for a chunk already held. O(log n) when the chunk comes
    /// after every chunk held, as a live stroke's do; O(n log n) when it
    /// arrives out of order and the runs are rebuilt.
    mutating func merge(_ chunk: Chunk) -> (MergeOutcome, waitsForGap: Bool) {
        let index = insertionIndex(of: chunk)
        if index < chunks.count, chunks[index] == chunk { return (.duplicate, false) }
        chunks.insert(chunk, at: index)
        let isAccepted: Bool
        if index == chunks.count - 1 {
            isAccepted = accepted.accept(chunk.sampleChunk)
        } else {
            var rebuilt = SampleRuns()
            var acceptedAtIndex = false
            for (position, candidate) in chunks.enumerated() {
                let took = rebuilt.accept(candidate.sampleChunk)
                if position == index { acceptedAtIndex = took }
            }
            accepted = rebuilt
            isAccepted = acceptedAtIndex
        }
        guard isAccepted else { return (.superseded, false) }
        return (.applied, UInt64(chunk.start) + UInt64(chunk.samples.count) > UInt64(accepted.contiguousCount))
    }

    /// The samples reachable from index 0, in order.
    var samples: [StrokeSample] { accepted.contiguousSamples }

    /// How many samples are reachable from index 0.
    var contiguousCount: UInt32 { accepted.contiguousCount }

    /// The chunks sorted by start index (then by their order), for the
    /// canonical encoding.
    var chunksByStart: [Chunk] {
        chunks.sorted { $0.start != $1.start ? $0.start < $1.start : $0.precedes($1) }
    }

    private func insertionIndex(of chunk: Chunk) -> Int {
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if chunks[middle].precedes(chunk) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension StrokeSample {
    /// The sample's bits, force absent as all ones: a total order for
    /// settling ties.
    var bitPatterns: [UInt32] {
        [x.bitPattern, y.bitPattern, time.bitPattern, force.map { $0.bitPattern } ?? UInt32.max]
    }
}
