/// Which leaf of the span tree holds a character, by id: for each replica,
/// its counters as sorted ranges, each range in one leaf. An op names its
/// origins by id, so this is how integrating one finds where they are
/// without walking the text. Kept whole as spans split, merge and move
/// between leaves.
struct SpanIndex: Sendable {
    struct Range: Sendable {
        var start: UInt64
        var end: UInt64
        var leaf: Int32
    }

    private var ranges: [ReplicaID: [Range]] = [:]

    /// The leaf holding `id`, if the character has arrived.
    func leaf(of id: OpID) -> Int32? {
        guard let list = ranges[id.replica] else { return nil }
        // The first range ending after the counter.
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].end <= id.counter { low = middle + 1 } else { high = middle }
        }
        guard low < list.count, list[low].start <= id.counter else { return nil }
        return list[low].leaf
    }

    /// Records that `count` characters from `first` are in `leaf`, whatever
    /// held them before.
    mutating func assign(_ first: OpID, count: Int, to leaf: Int32) {
        let start = first.counter
        let end = start &+ UInt64(count)
        ranges[first.replica, default: []].assign(Range(start: start, end: end, leaf: leaf))
    }
}

extension Array where Element == SpanIndex.Range {
    /// Overwrites `new.start ..< new.end` with `new`, cutting the ranges it
    /// overlaps and joining neighbours in the same leaf. Typing appends, the
    /// common case, which costs no search.
    fileprivate mutating func assign(_ new: SpanIndex.Range) {
        if let last = self.last, last.end <= new.start {
            if last.end == new.start, last.leaf == new.leaf {
                self[count - 1].end = new.end
            } else {
                append(new)
            }
            return
        }
        // The first range ending after `new` starts, the first starting at
        // or after it ends.
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].end <= new.start { low = middle + 1 } else { high = middle }
        }
        var upper = low
        while upper < count, self[upper].start < new.end { upper += 1 }
        var replacement: [SpanIndex.Range] = []
        if low < upper, self[low].start < new.start {
            replacement.append(SpanIndex.Range(start: self[low].start, end: new.start, leaf: self[low].leaf))
        }
        replacement.append(new)
        if low < upper, self[upper - 1].end > new.end {
            replacement.append(SpanIndex.Range(start: new.end, end: self[upper - 1].end, leaf: self[upper - 1].leaf))
        }
        replaceSubrange(low..<upper, with: replacement)
        // Join with the neighbours when they are in the same leaf and touch.
        var at = low + replacement.count - 1
        if at + 1 < count, self[at].end == self[at + 1].start, self[at].leaf == self[at + 1].leaf {
            self[at].end = self[at + 1].end
            remove(at: at + 1)
        }
        at = low
        if at > 0, self[at - 1].end == self[at].start, self[at - 1].leaf == self[at].leaf {
            self[at - 1].end = self[at].end
            remove(at: at)
        }
    }
}
