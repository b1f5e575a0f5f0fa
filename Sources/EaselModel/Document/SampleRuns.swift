/// Stroke samples placed from a start index: what an append carries.
public struct SampleChunk: Hashable, Sendable {
    public var start: UInt32
    public var samples: [StrokeSample]

    public init(start: UInt32, samples: [StrokeSample]) {
        self.start = start
        self.samples = samples
    }

    /// One past the chunk's last index, in 64 bits so it never overflows.
    public var end: UInt64 { UInt64(start) + UInt64(samples.count) }

    /// The first index at which the two chunks hold different samples, or
    /// nil when they agree wherever both have one. O(overlap).
    public func firstDisagreement(with other: SampleChunk) -> UInt32? {
        let from = max(UInt64(start), UInt64(other.start))
        let to = min(end, other.end)
        guard from < to else { return nil }
        for index in from..<to
        where samples[Int(index - UInt64(start))] != other.samples[Int(index - UInt64(other.start))] {
            return UInt32(index)
        }
        return nil
    }
}

/// Samples at indices, kept as sorted runs that neither overlap nor touch:
/// what a stroke's accepted chunks say, and what a server checks a new
/// append against.
public struct SampleRuns: Hashable, Sendable {
    private(set) var runs: [SampleChunk] = []

    public init() {}

    /// The first index at which `chunk` contradicts a sample held here, or
    /// nil when it agrees with all it overlaps. O(log r + overlap).
    public func firstDisagreement(with chunk: SampleChunk) -> UInt32? {
        var index = firstRun(endingAfter: UInt64(chunk.start))
        while index < runs.count, UInt64(runs[index].start) < chunk.end {
            if let conflict = runs[index].firstDisagreement(with: chunk) { return conflict }
            index += 1
        }
        return nil
    }

    /// Takes in `chunk` when it agrees with every sample held, merging it
    /// with the runs it overlaps or touches; false, changing nothing, when
    /// it contradicts one. Amortised O(log r + chunk) for a chunk that
    /// extends the last run, as a live stroke's appends do.
    @discardableResult
    public mutating func accept(_ chunk: SampleChunk) -> Bool {
        guard firstDisagreement(with: chunk) == nil else { return false }
        guard !chunk.samples.isEmpty else { return true }
        // Runs that overlap or touch the chunk: lower..<upper.
        let lower = firstRun(endingAfter: UInt64(chunk.start) == 0 ? 0 : UInt64(chunk.start) - 1)
        var upper = lower
        while upper < runs.count, UInt64(runs[upper].start) <= chunk.end { upper += 1 }
        guard lower < upper else {
            runs.insert(chunk, at: lower)
            return true
        }
        if chunk.start < runs[lower].start {
            let before = Int(runs[lower].start - chunk.start)
            runs[lower].samples.insert(contentsOf: chunk.samples[..<before], at: 0)
            runs[lower].start = chunk.start
        }
        if chunk.end > runs[lower].end {
            runs[lower].samples.append(contentsOf: chunk.samples[Int(runs[lower].end - UInt64(chunk.start))...])
        }
        if upper - 1 > lower, runs[upper - 1].end > chunk.end {
            let last = runs[upper - 1]
            runs[lower].samples.append(contentsOf: last.samples[Int(chunk.end - UInt64(last.start))...])
        }
        runs.removeSubrange((lower + 1)..<upper)
        return true
    }

    /// How many samples follow one another from index 0. O(1).
    public var contiguousCount: UInt32 {
        guard let first = runs.first, first.start == 0 else { return 0 }
        return UInt32(first.samples.count)
    }

    /// The samples from index 0 up to the first gap. O(1): shares storage.
    public var contiguousSamples: [StrokeSample] {
        guard let first = runs.first, first.start == 0 else { return [] }
        return first.samples
    }

    /// The index of the first run whose end lies beyond `index`.
    private func firstRun(endingAfter index: UInt64) -> Int {
        var low = 0
        var high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].end <= index { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
