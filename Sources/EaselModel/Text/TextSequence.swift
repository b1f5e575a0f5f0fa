/// A text that merges keystrokes: a sequence CRDT with the ordering of
/// FugueMax (Weidner and Kleppmann, "The Art of the Fugue: Minimizing
/// Interleaving in Collaborative Text Editing", arXiv 2305.00583), through
/// the integration rule of YjsMod, as in Joseph Gentle's reference
/// implementation (josephg/reference-crdts, `integrateYjsMod` in crdts.ts).
/// Two people typing at one place get their runs one after the other,
/// never interleaved, whatever order their ops arrive in.
///
/// Characters stay in the sequence once deleted (tombstones), since any
/// insert may name one as an origin. An op that names a character not yet
/// here waits until it arrives; an op applied twice changes nothing.
///
/// Characters are kept as runs (`TextSpan`) in a B-tree counted by visible
/// position (`SpanTree`), with an index from ids to leaves, so an edit
/// costs time in the logarithm of the text's length (Docs/text.md).
public struct TextSequence: Sendable {
    private(set) var tree = SpanTree()
    /// Every scalar ever typed, in the order its insert landed; spans point
    /// into it.
    private(set) var content: [Unicode.Scalar] = []
    /// Ops that name characters not here yet.
    private(set) var waiting: [TextOp] = []

    public init() {}

    /// Characters not deleted.
    public var count: Int { tree.visibleCount }

    /// The text as it reads.
    public var scalars: [Unicode.Scalar] {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(count)
        tree.forEachSpan { span in
            if !span.isDeleted { scalars.append(contentsOf: content[span.content..<span.content + span.length]) }
        }
        return scalars
    }

    public var string: String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// Whether any op is waiting for a character that has not arrived.
    public var isWaiting: Bool { !waiting.isEmpty }

    /// Whether the character `id` has arrived (deleted or not).
    public func contains(_ id: OpID) -> Bool { tree.cursor(of: id) != nil }

    /// How many characters from `id` on, of one replica's consecutive
    /// counters, are here; nil when `id` is not.
    public func presentRun(from id: OpID) -> Int? {
        guard let cursor = tree.cursor(of: id) else { return nil }
        return tree[cursor].length - cursor.offset
    }

    /// Whether every character of the run has arrived.
    public func containsAll(_ run: CharacterRun) -> Bool {
        var done = 0
        while done < run.count {
            guard let present = presentRun(from: run.first.advanced(by: done)) else { return false }
            done += present
        }
        return true
    }

    /// Characters ever inserted, deleted ones included.
    public var totalCount: Int { tree.totalCount }

    // MARK: Local edits

    /// The origins of characters typed before the character at `position`
    /// (0 ... count): the visible character before the place, and whatever
    /// follows that one, a deleted character included (the paper's rule,
    /// which diamond-types and Loro follow too).
    public func origins(at position: Int) -> (left: OpID?, right: OpID?) {
        let (left, place) = place(at: position)
        return (left, tree.id(at: place))
    }

    /// The place right after the visible character before `position`, and
    /// that character's id.
    private func place(at position: Int) -> (left: OpID?, place: SpanTree.Cursor) {
        precondition((0...count).contains(position), "a position in the text")
        guard position > 0 else { return (nil, tree.start) }
        let left = tree.cursor(visible: position - 1)
        return (tree[left].id(at: left.offset), tree.after(left))
    }

    /// Types `scalars` before the character at `position` (0 ... count),
    /// as characters `id`, `id + 1`, …, which must be new to the text (the
    /// replica's clock makes them so); the op to send. Nothing can sit
    /// between the origins, so the run goes right after the left one.
    @discardableResult
    public mutating func insert(_ scalars: [Unicode.Scalar], at position: Int, id: OpID) -> TextInsert {
        let (originLeft, place) = place(at: position)
        let op = TextInsert(id: id, originLeft: originLeft, originRight: tree.id(at: place), scalars: scalars)
        guard !scalars.isEmpty else { return op }
        land(op, at: place)
        if !waiting.isEmpty { retryWaiting() }
        return op
    }

    /// Deletes the characters at `range` (positions in the text as it
    /// reads); the op to send.
    @discardableResult
    public mutating func delete(_ range: Range<Int>) -> TextDelete {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "a range of the text")
        var deleted = TextDelete(runs: [])
        var remaining = range.count
        // What follows a deleted piece moves down to the range's start.
        while remaining > 0 {
            let place = tree.cursor(visible: range.lowerBound)
            let first = tree[place].id(at: place.offset)
            let taken = tree.delete(at: place, count: remaining)
            deleted.append(CharacterRun(first: first, count: taken))
            remaining -= taken
        }
        return deleted
    }

    // MARK: Remote ops

    /// Applies an op from anyone, in any order. An insert that names a
    /// character not here yet waits, as does the part of a delete that
    /// does (a character is deleted as soon as it is here, so deleting is
    /// per character and any order gives the same). Whatever waits is tried
    /// again after each op that lands. False when any of this one waits.
    @discardableResult
    public mutating func apply(_ op: TextOp) -> Bool {
        guard let rest = integrate(op) else {
            // Only characters arriving can let a waiting op land.
            if case .insert = op, !waiting.isEmpty { retryWaiting() }
            return true
        }
        if !waiting.contains(rest) { waiting.append(rest) }
        return false
    }

    private mutating func retryWaiting() {
        var progressed = true
        while progressed, !waiting.isEmpty {
            progressed = false
            for (offset, pending) in waiting.enumerated().reversed() {
                let rest = integrate(pending)
                guard rest != pending else { continue }
                if let rest { waiting[offset] = rest } else { waiting.remove(at: offset) }
                progressed = true
            }
        }
    }

    /// What of the op still waits, if anything.
    private mutating func integrate(_ op: TextOp) -> TextOp? {
        switch op {
        case .insert(let insert): integrate(insert) ? nil : op
        case .delete(let delete): integrate(delete).map { .delete($0) }
        }
    }

    private mutating func integrate(_ delete: TextDelete) -> TextDelete? {
        var missing = TextDelete(runs: [])
        for run in delete.runs {
            var done = 0
            while done < run.count {
                let id = run.first.advanced(by: done)
                if let cursor = tree.cursor(of: id) {
                    done += tree.delete(at: cursor, count: run.count - done)
                } else {
                    missing.join(TextDelete(runs: [CharacterRun(first: id, count: 1)]))
                    done += 1
                }
            }
        }
        return missing.runs.isEmpty ? nil : missing
    }

    /// YjsMod's rule (josephg/reference-crdts, crdts.ts, `integrateYjsMod`):
    /// scan right from the left origin to the right origin; an item whose
    /// left origin is further left ends the scan; a sibling (same left
    /// origin) whose right origin is further left may or may not come
    /// first, so the place is held while scanning past it; one with the
    /// same origins goes by replica, the lower one first.
    ///
    /// Only the first character of a span reached needs the rule: each next
    /// one's left origin is the character before it, already scanned past,
    /// so it changes nothing.
    private mutating func integrate(_ insert: TextInsert) -> Bool {
        var insert = insert
        if let present = tree.cursor(of: insert.id) {
            // Here already, or part of it is: a run joined from ops of
            // which the first ones arrived before. The rest types on.
            let had = tree[present].length - present.offset
            guard had < insert.scalars.count else { return true }
            insert = TextInsert(
                id: insert.id.advanced(by: had), originLeft: insert.id.advanced(by: had - 1),
                originRight: insert.originRight, scalars: Array(insert.scalars[had...]))
            return integrate(insert)
        }
        // A run that takes ids some characters here have is not one any
        // replica made; it changes nothing.
        if tree.index.containsAny(insert.id, count: insert.scalars.count) { return true }
        var cursor = tree.start
        if let left = insert.originLeft {
            guard let found = tree.cursor(of: left) else { return false }
            cursor = tree.after(found)
        }
        if let right = insert.originRight, tree.index.leaf(of: right) == nil { return false }
        guard !insert.scalars.isEmpty else { return true }
        // Positions (tombstones counted) of the origins, and of the others'
        // origins when they differ: found only when a scan needs them.
        var leftPosition: Int?
        var rightPosition: Int?
        var destination = cursor
        var scanning = false
        while let place = tree.normalized(cursor) {
            if !scanning { destination = place }
            let span = tree[place]
            let other = span.id(at: place.offset)
            if other == insert.originRight { break }
            let otherLeft = span.originLeft(at: place.offset)
            if otherLeft == insert.originLeft {
                if span.originRight == insert.originRight {
                    if Self.goesFirst(insert.id, before: other) { break }
                    scanning = false
                } else {
                    if rightPosition == nil { rightPosition = position(of: insert.originRight, missing: tree.totalCount) }
                    scanning = position(of: span.originRight, missing: tree.totalCount) < rightPosition ?? 0
                }
            } else {
                if leftPosition == nil { leftPosition = position(of: insert.originLeft, missing: -1) }
                if position(of: otherLeft, missing: -1) < leftPosition ?? 0 { break }
            }
            // On past the rest of the span. An op a replica made never
            // names a right origin further inside a span than where the
            // scan enters it (the character before would have been its
            // left origin); a forged one might, and the scan still stops.
            var end = span.length
            if let right = insert.originRight, let offset = span.offset(of: right), offset > place.offset {
                end = offset
            }
            cursor = place
            if end == span.length {
                cursor.span += 1
                cursor.offset = 0
            } else {
                cursor.offset = end
            }
            if !scanning { destination = cursor }
        }
        land(insert, at: destination)
        return true
    }

    private func position(of id: OpID?, missing: Int) -> Int {
        guard let id, let cursor = tree.cursor(of: id) else { return missing }
        return tree.position(of: cursor, all: true)
    }

    mutating func land(_ insert: TextInsert, at place: SpanTree.Cursor, isDeleted: Bool = false) {
        let span = TextSpan(
            first: insert.id, length: insert.scalars.count, content: content.count,
            originLeft: insert.originLeft, originRight: insert.originRight, isDeleted: isDeleted)
        content.append(contentsOf: insert.scalars)
        tree.insert(span, at: place)
    }

    /// Of two inserts with the same origins, the lower replica goes first;
    /// one replica's two (possible only across a reset) by counter.
    static func goesFirst(_ id: OpID, before other: OpID) -> Bool {
        id.replica != other.replica ? id.replica < other.replica : id.counter < other.counter
    }
}

extension OpID {
    /// The id `offset` counters on, as a run's characters are numbered.
    @inlinable
    public func advanced(by offset: Int) -> OpID {
        OpID(counter: counter &+ UInt64(offset), replica: replica)
    }
}

extension TextSequence: Equatable {
    /// The same characters in the same order, deleted alike: what
    /// converging means, however each replica's runs happen to be cut.
    /// Ops still waiting are not compared.
    public static func == (lhs: TextSequence, rhs: TextSequence) -> Bool {
        lhs.items == rhs.items
    }
}

extension TextSequence {
    /// One character as stored: what sameness is judged on, and what tests
    /// compare against the reference.
    struct Item: Equatable {
        var id: OpID
        var scalar: Unicode.Scalar
        var isDeleted: Bool
    }

    var items: [Item] {
        var items: [Item] = []
        tree.forEachSpan { span in
            for offset in 0..<span.length {
                items.append(Item(id: span.id(at: offset), scalar: content[span.content + offset], isDeleted: span.isDeleted))
            }
        }
        return items
    }
}
