/// Which leaf of the span tree holds a character, by id: for each replica,
/// its counters as sorted ranges, each range in one leaf. An op names its
/// origins by id, so this is how integrating one finds where they are
/// without walking the text. Kept whole as spans split, merge and move
/// between leaves.
///
/// A replica's ranges are many (about one a span once its text is edited
/// all over) and a leaf split rewrites some in the middle, so they are kept
/// in chunks of at most 64: a rewrite moves one chunk's worth, not the list.
struct SpanIndex: Sendable {
    struct Range: Sendable {
        var start: UInt64
        var end: UInt64
        var leaf: Int32
    }

    static let chunkCapacity = 64

    /// One replica's ranges, sorted, in chunks; `starts[c]` is chunk `c`'s
    /// first range's start.
    struct Ranges: Sendable {
        var chunks: [[Range]] = []
        var starts: [UInt64] = []
    }

    // A text has few authors, so a replica is found by a look along a short
    // list, cheaper than hashing its id; the table serves a crowded text.
    private var replicaIDs: [ReplicaID] = []
    private var replicaRanges: [Ranges] = []
    private var slots: [ReplicaID: Int] = [:]
    private static let listedReplicas = 8

    private func slot(of replica: ReplicaID) -> Int? {
        if replicaIDs.count > Self.listedReplicas { return slots[replica] }
        for slot in replicaIDs.indices where replicaIDs[slot] == replica { return slot }
        return nil
    }

    /// The leaf holding `id`, if the character has arrived.
    func leaf(of id: OpID) -> Int32? {
        guard let slot = slot(of: id.replica) else { return nil }
        let chunk = replicaRanges[slot].chunk(containing: id.counter)
        guard chunk >= 0 else { return nil }
        let at = replicaRanges[slot].chunks[chunk].firstEnding(after: id.counter)
        guard at < replicaRanges[slot].chunks[chunk].count else { return nil }
        let range = replicaRanges[slot].chunks[chunk][at]
        return range.start <= id.counter ? range.leaf : nil
    }

    /// Whether any of `count` characters from `first` is here.
    func containsAny(_ first: OpID, count: Int) -> Bool {
        guard let slot = slot(of: first.replica) else { return false }
        let ranges = replicaRanges[slot]
        let end = first.counter &+ UInt64(count)
        var chunk = max(ranges.chunk(containing: first.counter), 0)
        while chunk < ranges.chunks.count, ranges.starts[chunk] < end {
            let list = ranges.chunks[chunk]
            let at = list.firstEnding(after: first.counter)
            if at < list.count, list[at].start < end { return true }
            chunk += 1
        }
        return false
    }

    /// Records that `count` characters from `first` are in `leaf`, whatever
    /// held them before.
    mutating func assign(_ first: OpID, count: Int, to leaf: Int32) {
        let new = Range(start: first.counter, end: first.counter &+ UInt64(count), leaf: leaf)
        if let slot = slot(of: first.replica) {
            replicaRanges[slot].assign(new)
            return
        }
        slots[first.replica] = replicaIDs.count
        replicaIDs.append(first.replica)
        var ranges = Ranges()
        ranges.assign(new)
        replicaRanges.append(ranges)
    }
}

extension SpanIndex.Ranges {
    /// The last chunk starting at or before `counter`; -1 when none does.
    func chunk(containing counter: UInt64) -> Int {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= counter { low = middle + 1 } else { high = middle }
        }
        return low - 1
    }

    /// Overwrites `new.start ..< new.end` with `new`. Typing appends, the
    /// common case, which costs no search.
    mutating func assign(_ new: SpanIndex.Range) {
        if chunks.isEmpty {
            chunks = [[new]]
            starts = [new.start]
            return
        }
        let lastChunk = chunks.count - 1
        if let last = chunks[lastChunk].last, last.end <= new.start {
            if last.end == new.start, last.leaf == new.leaf {
                chunks[lastChunk][chunks[lastChunk].count - 1].end = new.end
            } else {
                chunks[lastChunk].append(new)
                splitIfFull(lastChunk)
            }
            return
        }
        // Clear the span of counters in every chunk it reaches, then put
        // `new` in the chunk it starts in.
        var chunk = max(chunk(containing: new.start), 0)
        let home = chunk
        while chunk < chunks.count, starts[chunk] < new.end {
            chunks[chunk].clear(new.start..<new.end)
            chunk += 1
        }
        chunks[home].place(new)
        for touched in (home..<max(chunk, home + 1)).reversed() {
            if chunks[touched].isEmpty {
                chunks.remove(at: touched)
                starts.remove(at: touched)
            } else {
                starts[touched] = chunks[touched][0].start
            }
        }
        // Only the home chunk can have grown: by `new`, and by a range
        // `new` fell inside of, cut in two.
        splitIfFull(home)
    }

    private mutating func splitIfFull(_ chunk: Int) {
        guard chunks[chunk].count > SpanIndex.chunkCapacity else { return }
        let half = chunks[chunk].count / 2
        let moved = Array(chunks[chunk][half...])
        chunks[chunk].removeSubrange(half...)
        chunks.insert(moved, at: chunk + 1)
        starts.insert(moved[0].start, at: chunk + 1)
    }
}

extension Array where Element == SpanIndex.Range {
    /// The first range ending after `counter`.
    fileprivate func firstEnding(after counter: UInt64) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].end <= counter { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Takes `cleared` out of the ranges, cutting those it overlaps.
    fileprivate mutating func clear(_ cleared: Swift.Range<UInt64>) {
        var at = firstEnding(after: cleared.lowerBound)
        while at < count, self[at].start < cleared.upperBound {
            let range = self[at]
            if range.start < cleared.lowerBound, range.end > cleared.upperBound {
                self[at].end = cleared.lowerBound
                insert(SpanIndex.Range(start: cleared.upperBound, end: range.end, leaf: range.leaf), at: at + 1)
                return
            } else if range.start < cleared.lowerBound {
                self[at].end = cleared.lowerBound
                at += 1
            } else if range.end > cleared.upperBound {
                self[at].start = cleared.upperBound
                return
            } else {
                remove(at: at)
            }
        }
    }

    /// Puts `new` in its place among ranges that leave room for it, joined
    /// to a neighbour in the same leaf that touches it.
    fileprivate mutating func place(_ new: SpanIndex.Range) {
        var at = firstEnding(after: new.start)
        if at > 0, self[at - 1].end == new.start, self[at - 1].leaf == new.leaf {
            self[at - 1].end = new.end
            at -= 1
        } else {
            insert(new, at: at)
        }
        if at + 1 < count, self[at].end == self[at + 1].start, self[at].leaf == self[at + 1].leaf {
            self[at].end = self[at + 1].end
            remove(at: at + 1)
        }
    }
}
