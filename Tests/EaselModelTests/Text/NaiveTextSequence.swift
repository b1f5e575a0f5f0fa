import EaselModel

/// The reference the real sequence is checked against: FugueMax through
/// YjsMod's rule (josephg/reference-crdts, `integrateYjsMod`), written the
/// plain way, one item a character in an array, so that it is easy to see
/// it right. `TextSequence` keeps runs in a tree; on random histories the
/// two must read alike, character for character.
struct NaiveTextSequence: Sendable {
    struct Item: Hashable, Sendable {
        var id: OpID
        var originLeft: OpID?
        var originRight: OpID?
        var scalar: Unicode.Scalar
        var isDeleted = false
    }

    /// Every character ever inserted, in document order.
    private(set) var items: [Item] = []
    /// Where each character is in `items`.
    private var indices: [OpID: Int] = [:]
    /// Ops that name characters not here yet.
    private(set) var waiting: [TextOp] = []
    /// Characters not deleted.
    private(set) var count = 0

    init() {}

    /// The text as it reads.
    var scalars: [Unicode.Scalar] { items.lazy.filter { !$0.isDeleted }.map { $0.scalar } }

    var string: String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// Whether any op is waiting for a character that has not arrived.
    var isWaiting: Bool { !waiting.isEmpty }

    // MARK: Local edits

    /// Types `scalars` before the character at `position` (0 ... count),
    /// as characters `id`, `id + 1`, …; the op to send.
    @discardableResult
    mutating func insert(_ scalars: [Unicode.Scalar], at position: Int, id: OpID) -> TextInsert {
        precondition((0...count).contains(position), "a position in the text")
        // The left origin is the visible character before the place; the
        // right one whatever follows it, a deleted character included (the
        // paper's rule, which diamond-types and Loro follow too).
        let leftIndex = position == 0 ? -1 : visibleIndex(position - 1)
        let op = TextInsert(
            id: id, originLeft: leftIndex < 0 ? nil : items[leftIndex].id,
            originRight: leftIndex + 1 < items.count ? items[leftIndex + 1].id : nil, scalars: scalars)
        apply(.insert(op))
        return op
    }

    /// Deletes the characters at `range` (positions in the text as it
    /// reads); the op to send.
    @discardableResult
    mutating func delete(_ range: Range<Int>) -> TextDelete {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "a range of the text")
        var runs: [CharacterRun] = []
        var seen = 0
        for item in items where !item.isDeleted {
            defer { seen += 1 }
            guard range.contains(seen) else { continue }
            if let last = runs.last, last.first.replica == item.id.replica,
                last.first.counter + UInt64(last.count) == item.id.counter
            {
                runs[runs.count - 1].count += 1
            } else {
                runs.append(CharacterRun(first: item.id, count: 1))
            }
        }
        let op = TextDelete(runs: runs)
        apply(.delete(op))
        return op
    }

    private func visibleIndex(_ position: Int) -> Int {
        var seen = 0
        for index in items.indices where !items[index].isDeleted {
            if seen == position { return index }
            seen += 1
        }
        return items.count
    }

    // MARK: Remote ops

    /// Applies an op from anyone, in any order: one that names a character
    /// not here yet waits, and every op waiting is tried again after each
    /// that lands. False when this one waits.
    @discardableResult
    mutating func apply(_ op: TextOp) -> Bool {
        guard integrate(op) else {
            if !waiting.contains(op) { waiting.append(op) }
            return false
        }
        var progressed = true
        while progressed, !waiting.isEmpty {
            progressed = false
            for (offset, pending) in waiting.enumerated().reversed() where integrate(pending) {
                waiting.remove(at: offset)
                progressed = true
            }
        }
        return true
    }

    private mutating func integrate(_ op: TextOp) -> Bool {
        switch op {
        case .insert(let insert): integrate(insert)
        case .delete(let delete): integrate(delete)
        }
    }

    private mutating func integrate(_ delete: TextDelete) -> Bool {
        let ids = delete.runs.flatMap { $0.ids }
        guard ids.allSatisfy({ indices[$0] != nil }) else { return false }
        for id in ids {
            guard let index = indices[id], !items[index].isDeleted else { continue }
            items[index].isDeleted = true
            count -= 1
        }
        return true
    }

    private func index(of id: OpID?, or missing: Int) -> Int {
        id.flatMap { indices[$0] } ?? missing
    }

    /// YjsMod's rule (josephg/reference-crdts, crdts.ts, `integrateYjsMod`):
    /// scan right from the left origin to the right origin; an item whose
    /// left origin is further left ends the scan; a sibling (same left
    /// origin) whose right origin is further left may or may not come
    /// first, so the place is held while scanning past it; one with the
    /// same origins goes by replica, the lower one first.
    private mutating func integrate(_ insert: TextInsert) -> Bool {
        if indices[insert.id] != nil { return true }
        if let left = insert.originLeft, indices[left] == nil { return false }
        if let right = insert.originRight, indices[right] == nil { return false }
        guard !insert.scalars.isEmpty else { return true }
        let left = index(of: insert.originLeft, or: -1)
        let right = index(of: insert.originRight, or: items.count)
        var destination = left + 1
        var scanning = false
        var cursor = left + 1
        while true {
            if !scanning { destination = cursor }
            if cursor == items.count || cursor == right { break }
            let other = items[cursor]
            let otherLeft = index(of: other.originLeft, or: -1)
            let otherRight = index(of: other.originRight, or: items.count)
            if otherLeft < left { break }
            if otherLeft == left {
                if otherRight < right {
                    scanning = true
                } else if otherRight == right {
                    if Self.goesFirst(insert.id, before: other.id) { break }
                    scanning = false
                } else {
                    scanning = false
                }
            }
            cursor += 1
        }
        let run = insert.scalars.indices.map { offset in
            Item(
                id: insert.id(at: offset), originLeft: offset == 0 ? insert.originLeft : insert.id(at: offset - 1),
                originRight: insert.originRight, scalar: insert.scalars[offset])
        }
        items.insert(contentsOf: run, at: destination)
        for index in destination..<items.count { indices[items[index].id] = index }
        count += run.count
        return true
    }

    /// Of two inserts with the same origins, the lower replica goes first;
    /// one replica's two (possible only across a reset) by counter.
    static func goesFirst(_ id: OpID, before other: OpID) -> Bool {
        id.replica != other.replica ? id.replica < other.replica : id.counter < other.counter
    }
}

extension NaiveTextSequence: Equatable {
    /// The same characters in the same order, deleted alike: what
    /// converging means. Ops still waiting are not compared.
    static func == (lhs: NaiveTextSequence, rhs: NaiveTextSequence) -> Bool {
        lhs.items == rhs.items
    }
}
