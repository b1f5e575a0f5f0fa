/// A stroke's samples as the chunks appended to it.
///
/// The visible samples are the chain of chunks from index 0, each starting
/// where the previous one ends. A chunk ahead of a gap waits; an identical
/// repeat changes nothing; of two different chunks at one start index the
/// higher OpID wins. The state is therefore a function of the set of chunks,
/// whatever order they arrive in.
struct StrokeSamples: Hashable, Sendable {
    struct Chunk: Hashable, Sendable {
        var stamp: OpID
        var samples: [StrokeSample]
    }

    /// The winning chunk at each start index.
    private(set) var chunks: [UInt32: Chunk] = [:]

    /// Merges a chunk; `.applied` with `waitsForGap` when it is not yet
    /// reachable from index 0.
    mutating func merge(start: UInt32, samples: [StrokeSample], stamp: OpID) -> (MergeOutcome, waitsForGap: Bool) {
        let outcome: MergeOutcome
        if let current = chunks[start] {
            if stamp > current.stamp {
                outcome = .applied
            } else if stamp < current.stamp {
                outcome = .superseded
            } else if samples == current.samples {
                outcome = .duplicate
            } else {
                // Same stamp, different samples: settle on the longer, then
                // on the lexicographically larger bits, as every replica will.
                outcome = Self.settles(samples, over: current.samples) ? .applied : .superseded
            }
        } else {
            outcome = .applied
        }
        if outcome == .applied {
            chunks[start] = Chunk(stamp: stamp, samples: samples)
        }
        return (outcome, !chainReaches(start))
    }

    /// The samples reachable from index 0, in order.
    var samples: [StrokeSample] {
        var result: [StrokeSample] = []
        var next: UInt32? = 0
        while let start = next, let chunk = chunks[start] {
            result += chunk.samples
            next = Self.end(of: chunk, at: start)
        }
        return result
    }

    /// How many samples are reachable from index 0.
    var contiguousCount: UInt32 {
        var next: UInt32 = 0
        while let chunk = chunks[next], let end = Self.end(of: chunk, at: next) { next = end }
        return next
    }

    /// The chunks sorted by start index, for canonical encoding.
    var sortedChunks: [(start: UInt32, chunk: Chunk)] {
        chunks.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    private func chainReaches(_ start: UInt32) -> Bool {
        var next: UInt32 = 0
        while next < start, let chunk = chunks[next], let end = Self.end(of: chunk, at: next) { next = end }
        return next == start
    }

    /// Where the chunk after this one starts; nil for an empty chunk or one
    /// reaching past UInt32 (which validation refuses; this keeps the chain
    /// walk finite regardless).
    private static func end(of chunk: Chunk, at start: UInt32) -> UInt32? {
        guard !chunk.samples.isEmpty, chunk.samples.count <= Int(UInt32.max) else { return nil }
        let (end, overflow) = start.addingReportingOverflow(UInt32(chunk.samples.count))
        return overflow ? nil : end
    }

    private static func settles(_ candidate: [StrokeSample], over current: [StrokeSample]) -> Bool {
        if candidate.count != current.count { return candidate.count > current.count }
        let bits: (StrokeSample) -> [UInt32] = { sample in
            [
                sample.x.bitPattern, sample.y.bitPattern, sample.time.bitPattern,
                sample.force.map { $0.bitPattern } ?? UInt32.max,
            ]
        }
        return current.flatMap(bits).lexicographicallyPrecedes(candidate.flatMap(bits))
    }
}
