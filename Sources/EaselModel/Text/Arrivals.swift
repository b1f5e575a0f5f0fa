/// Each character's arrival number, both ways: the order characters
/// arrived in this replica (0, 1, 2, …, which is also where each one's
/// scalar is in the sequence's store) from its id, and its id from its
/// number.
///
/// The span tree works in arrival numbers, as diamond-types works in local
/// versions: a number is 4 bytes where an id is 16, so a span with its two
/// origins fits in 16 bytes, and finding a character's leaf is one array
/// read (`SpanTree`). Ids are only needed where replicas must agree: an op
/// names characters by id, and two inserts with the same origins are
/// ordered by replica.
struct Arrivals: Sendable {
    /// Consecutive counters of one replica that arrived one after another.
    struct Run: Sendable {
        var counter: UInt64
        var arrival: Int32
        var count: Int32

        var end: UInt64 { counter &+ UInt64(count) }
    }

    /// One run of arrivals, with its replica, in the order they came.
    private struct Arrival: Sendable {
        var first: OpID
        var arrival: Int32
        var count: Int32
    }

    private var inOrder: [Arrival] = []
    // A text has few authors, so a replica is found by a look along a short
    // list, cheaper than hashing its id; the table serves a crowded text.
    private var replicaIDs: [ReplicaID] = []
    private var replicaRuns: [ReplicaRuns] = []
    private var slots: [ReplicaID: Int] = [:]
    private static let listedReplicas = 8

    /// Characters arrived.
    private(set) var count = 0

    var storageBytes: Int {
        inOrder.capacity * MemoryLayout<Arrival>.stride + replicaIDs.capacity * MemoryLayout<ReplicaID>.stride
            + replicaRuns.reduce(0) { $0 + $1.storageBytes }
    }

    mutating func reserveCapacity(runs: Int) {
        inOrder.reserveCapacity(runs)
    }

    private func slot(of replica: ReplicaID) -> Int? {
        if replicaIDs.count > Self.listedReplicas { return slots[replica] }
        for slot in replicaIDs.indices where replicaIDs[slot] == replica { return slot }
        return nil
    }

    /// The arrival of `id` and how many of the counters from it on arrived
    /// right after it (at least 1); nil when `id` has not arrived.
    func run(from id: OpID) -> (arrival: Int, count: Int)? {
        guard let slot = slot(of: id.replica), let run = replicaRuns[slot].run(containing: id.counter) else { return nil }
        let offset = Int(id.counter - run.counter)
        return (Int(run.arrival) + offset, Int(run.count) - offset)
    }

    /// The arrival of `id`, if it has arrived.
    @inline(__always)
    func arrival(of id: OpID) -> Int? { run(from: id)?.arrival }

    /// Whether any of `count` characters from `first` has arrived.
    func containsAny(_ first: OpID, count: Int) -> Bool {
        guard let slot = slot(of: first.replica), let next = replicaRuns[slot].firstRun(endingAfter: first.counter)
        else { return false }
        return next.counter < first.counter &+ UInt64(count)
    }

    /// The id of the character that arrived `arrival`th (0 ..< count).
    func id(of arrival: Int) -> OpID {
        let number = Int32(arrival)
        var low = 0
        var high = inOrder.count
        // The last run arriving at or before `arrival`.
        while low < high {
            let middle = (low + high) / 2
            if inOrder[middle].arrival <= number { low = middle + 1 } else { high = middle }
        }
        let run = inOrder[low - 1]
        return run.first.advanced(by: Int(number - run.arrival))
    }

    /// Numbers `count` characters from `first`: their first arrival, and
    /// whether the character that arrived just before has the id just
    /// before `first`, so that spans ending with it may go on with these.
    /// Nil, numbering none, when any of them has arrived already.
    mutating func add(_ first: OpID, count: Int) -> (arrival: Int, continuesLast: Bool)? {
        let arrival = self.count
        let number = Int32(arrival)
        let new = Run(counter: first.counter, arrival: number, count: Int32(count))
        if let slot = slot(of: first.replica) {
            guard replicaRuns[slot].place(new) else { return nil }
        } else {
            slots[first.replica] = replicaIDs.count
            replicaIDs.append(first.replica)
            var runs = ReplicaRuns()
            _ = runs.place(new)
            replicaRuns.append(runs)
        }
        self.count += count
        return (arrival, appendInOrder(first, count: count, arrival: number))
    }

    /// Records that `count` characters from `first` arrived `arrival`th:
    /// true when their ids go on from the last arrival's, whose run they
    /// then lengthen.
    private mutating func appendInOrder(_ first: OpID, count: Int, arrival: Int32) -> Bool {
        if let last = inOrder.last, last.first.replica == first.replica,
            last.first.counter &+ UInt64(last.count) == first.counter
        {
            inOrder[inOrder.count - 1].count += Int32(count)
            return true
        }
        inOrder.append(Arrival(first: first, arrival: arrival, count: Int32(count)))
        return false
    }
}

extension Arrivals {
    /// Numbers a snapshot's runs in the order given, into an index that
    /// has none yet. Each replica's runs are sorted by counter once: a
    /// snapshot gives them in the text's order, and placing them one by
    /// one had searched and shifted a chunk for each (a quarter of a
    /// load's instructions on the automerge-paper trace). For each run,
    /// whether its ids go on from the run before it; nil when two runs
    /// share a counter.
    mutating func addAll(_ runs: [TextSnapshot.Run]) -> [Bool]? {
        precondition(count == 0, "a snapshot is numbered into an empty text")
        var byReplica: [[Run]] = []
        var idsGoOn: [Bool] = []
        idsGoOn.reserveCapacity(runs.count)
        inOrder.reserveCapacity(runs.count)
        for run in runs {
            let number = Int32(count)
            let slot: Int
            if let known = self.slot(of: run.first.replica) {
                slot = known
            } else {
                slot = replicaIDs.count
                slots[run.first.replica] = slot
                replicaIDs.append(run.first.replica)
                byReplica.append([])
            }
            byReplica[slot].append(Run(counter: run.first.counter, arrival: number, count: Int32(run.count)))
            idsGoOn.append(appendInOrder(run.first, count: run.count, arrival: number))
            count += run.count
        }
        for var sorted in byReplica {
            sorted.sort { $0.counter < $1.counter }
            guard let built = ReplicaRuns(sorted: sorted) else { return nil }
            replicaRuns.append(built)
        }
        return idsGoOn
    }
}

/// One replica's runs, sorted by counter, in chunks of at most
/// `chunkCapacity`: a snapshot gives runs in the text's order, not the
/// counters', and a run placed among many moves one chunk's worth, not
/// the list.
private struct ReplicaRuns: Sendable {
    static let chunkCapacity = 128

    private var chunks: [[Arrivals.Run]] = []
    /// Each chunk's first counter.
    private var starts: [UInt64] = []

    var storageBytes: Int {
        starts.capacity * 8 + chunks.reduce(0) { $0 + $1.capacity * MemoryLayout<Arrivals.Run>.stride }
    }

    init() {}

    /// Runs sorted by counter, the ones that go on from each other in both
    /// counters and arrivals joined; nil when two overlap.
    init?(sorted runs: [Arrivals.Run]) {
        var joined: [Arrivals.Run] = []
        joined.reserveCapacity(runs.count)
        for run in runs {
            if let last = joined.last {
                guard last.end <= run.counter else { return nil }
                if last.end == run.counter, last.arrival + last.count == run.arrival {
                    joined[joined.count - 1].count += run.count
                    continue
                }
            }
            joined.append(run)
        }
        // Chunks half full, as splitting leaves them, so that runs placed
        // later among them shift little.
        let fill = Self.chunkCapacity / 2
        chunks.reserveCapacity(joined.count / fill + 1)
        for start in stride(from: 0, to: joined.count, by: fill) {
            chunks.append(Array(joined[start..<min(start + fill, joined.count)]))
            starts.append(joined[start].counter)
        }
    }

    /// The chunk whose runs would hold `counter`: the last starting at or
    /// before it (0 when none does). Counters mostly come in order, so the
    /// last chunk is tried first.
    private func chunk(for counter: UInt64) -> Int {
        if let last = starts.last, last <= counter { return starts.count - 1 }
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= counter { low = middle + 1 } else { high = middle }
        }
        return max(low - 1, 0)
    }

    func run(containing counter: UInt64) -> Arrivals.Run? {
        guard !chunks.isEmpty else { return nil }
        let chunk = chunk(for: counter)
        let at = chunks[chunk].firstEnding(after: counter)
        guard at < chunks[chunk].count, chunks[chunk][at].counter <= counter else { return nil }
        return chunks[chunk][at]
    }

    /// The first run with a counter past `counter`, `counter`'s own when
    /// it has one.
    func firstRun(endingAfter counter: UInt64) -> Arrivals.Run? {
        guard !chunks.isEmpty else { return nil }
        var chunk = chunk(for: counter)
        while chunk < chunks.count {
            let at = chunks[chunk].firstEnding(after: counter)
            if at < chunks[chunk].count { return chunks[chunk][at] }
            chunk += 1
        }
        return nil
    }

    /// Puts `new` in counter order, joined to the run before when it goes
    /// on from it in both counters and arrivals; false, changing nothing,
    /// when a run has some of its counters. Typing appends, which costs no
    /// search.
    mutating func place(_ new: Arrivals.Run) -> Bool {
        guard !chunks.isEmpty else {
            chunks = [[new]]
            starts = [new.counter]
            return true
        }
        // Typing on: the run goes on from the replica's last, which it
        // joins with no search.
        let lastChunk = chunks.count - 1
        if let tail = chunks[lastChunk].last, tail.end == new.counter, tail.arrival + tail.count == new.arrival {
            chunks[lastChunk][chunks[lastChunk].count - 1].count += new.count
            return true
        }
        let chunk = chunk(for: new.counter)
        let at = chunks[chunk].firstEnding(after: new.counter)
        let nextStart = at < chunks[chunk].count ? chunks[chunk][at].counter : chunk + 1 < starts.count ? starts[chunk + 1] : nil
        if let nextStart, nextStart < new.end { return false }
        if at > 0, chunks[chunk][at - 1].end == new.counter,
            chunks[chunk][at - 1].arrival + chunks[chunk][at - 1].count == new.arrival
        {
            chunks[chunk][at - 1].count += new.count
            return true
        }
        chunks[chunk].insert(new, at: at)
        starts[chunk] = chunks[chunk][0].counter
        guard chunks[chunk].count > Self.chunkCapacity else { return true }
        let half = chunks[chunk].count / 2
        let moved = Array(chunks[chunk][half...])
        chunks[chunk].removeSubrange(half...)
        chunks.insert(moved, at: chunk + 1)
        starts.insert(moved[0].counter, at: chunk + 1)
        return true
    }
}

extension Array where Element == Arrivals.Run {
    /// The first run ending after `counter`.
    fileprivate func firstEnding(after counter: UInt64) -> Int {
        // A replica's counters mostly arrive in order: the last run first.
        if let last = last, last.counter <= counter { return last.end > counter ? count - 1 : count }
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].end <= counter { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
