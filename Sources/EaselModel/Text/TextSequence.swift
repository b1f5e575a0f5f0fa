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
/// position (`SpanTree`), named by the order they arrived in (`Arrivals`),
/// with an index from arrivals to leaves, so an edit costs time in the
/// logarithm of the text's length (Docs/text.md).
public struct TextSequence: Sendable {
    private(set) var tree = SpanTree()
    private(set) var arrivals = Arrivals()
    /// Every scalar ever typed, in the order it arrived; spans point into
    /// it by arrival.
    private(set) var content = ScalarStore()
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
            if !span.isDeleted { content.copy(span.first..<span.first + span.length, to: &scalars) }
        }
        return scalars
    }

    public var string: String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// Bytes the sequence's stores hold (their capacity), ops waiting
    /// aside: what a loaded text costs in memory.
    public var storageBytes: Int {
        content.storageBytes + tree.storageBytes + arrivals.storageBytes
    }

    /// Room for `count` characters in all, arriving in about `runs` runs,
    /// made at once.
    mutating func reserveCapacity(_ count: Int, runs: Int) {
        content.reserveCapacity(count)
        tree.reserveCapacity(arrivals: count, spans: runs)
        arrivals.reserveCapacity(runs: runs)
    }

    /// Whether any op is waiting for a character that has not arrived.
    public var isWaiting: Bool { !waiting.isEmpty }

    /// Whether the character `id` has arrived (deleted or not).
    public func contains(_ id: OpID) -> Bool { arrivals.arrival(of: id) != nil }

    /// How many characters from `id` on, of one replica's consecutive
    /// counters, are here (some, if not all); nil when `id` is not.
    public func presentRun(from id: OpID) -> Int? {
        arrivals.run(from: id)?.count
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
        return (id(of: left), id(of: tree.arrival(at: place) ?? TextSpan.none))
    }

    /// The place right after the visible character before `position`, and
    /// that character's arrival (`TextSpan.none` at the start).
    private func place(at position: Int) -> (left: Int32, place: SpanTree.Cursor) {
        precondition((0...count).contains(position), "a position in the text")
        guard position > 0 else { return (TextSpan.none, tree.start) }
        return place(after: tree.cursor(visible: position - 1))
    }

    /// The place right after the character at `left`, and its arrival.
    private func place(after left: SpanTree.Cursor) -> (left: Int32, place: SpanTree.Cursor) {
        (tree[left].arrival(at: left.offset), tree.after(left))
    }

    /// The id of an arrival; nil for `TextSpan.none`.
    func id(of arrival: Int32) -> OpID? {
        arrival == TextSpan.none ? nil : arrivals.id(of: Int(arrival))
    }

    /// Types `scalars` before the character at `position` (0 ... count),
    /// as characters `id`, `id + 1`, …, which must be new to the text (the
    /// replica's clock makes them so); the op to send. Nothing can sit
    /// between the origins, so the run goes right after the left one.
    @discardableResult
    public mutating func insert(_ scalars: [Unicode.Scalar], at position: Int, id: OpID) -> TextInsert {
        precondition((0...count).contains(position), "a position in the text")
        // As `place(at:)` finds it, from the leaf of the last local edit.
        let (left, place) =
            position > 0 ? place(after: tree.cursorNearRecent(visible: position - 1)) : (TextSpan.none, tree.start)
        let right = tree.arrival(at: place) ?? TextSpan.none
        let op = TextInsert(id: id, originLeft: self.id(of: left), originRight: self.id(of: right), scalars: scalars)
        guard !scalars.isEmpty else { return op }
        scalars.withUnsafeBufferPointer { land(id, $0, originLeft: left, originRight: right, at: place) }
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
            let place = tree.cursorNearRecent(visible: range.lowerBound)
            let first = arrivals.id(of: Int(tree[place].arrival(at: place.offset)))
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
        switch op {
        case .insert(let insert): apply(insert)
        case .delete(let delete): apply(delete)
        }
    }

    @discardableResult
    mutating func apply(_ insert: TextInsert) -> Bool {
        guard integrate(insert) else {
            if !waiting.contains(.insert(insert)) { waiting.append(.insert(insert)) }
            return false
        }
        // Only characters arriving can let a waiting op land.
        if !waiting.isEmpty { retryWaiting() }
        return true
    }

    /// An insert as a received op carries it, merged with no list made of
    /// its scalars; one that waits is kept as a `TextInsert`.
    @discardableResult
    mutating func apply(_ insertion: TextInsertion, id: OpID) -> Bool {
        let landed = insertion.withUTF8 { utf8, count in
            integrate(
                id, originLeft: insertion.originLeft, originRight: insertion.originRight,
                scalars: UTF8Scalars(utf8: utf8, count: count))
        }
        guard landed else { return apply(TextInsert((id: id, insertion: insertion))) }
        if !waiting.isEmpty { retryWaiting() }
        return true
    }

    @discardableResult
    mutating func apply(_ delete: TextDelete) -> Bool {
        guard let rest = integrate(delete) else { return true }
        if !waiting.contains(.delete(rest)) { waiting.append(.delete(rest)) }
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
                if let present = arrivals.run(from: id) {
                    // Arrived together, perhaps in several spans.
                    let wanted = min(run.count - done, present.count)
                    var covered = 0
                    while covered < wanted {
                        covered += tree.delete(at: tree.cursor(of: present.arrival + covered), count: wanted - covered)
                    }
                    done += wanted
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
        insert.scalars.withUnsafeBufferPointer {
            integrate(insert.id, originLeft: insert.originLeft, originRight: insert.originRight, scalars: $0)
        }
    }

    private mutating func integrate(
        _ id: OpID, originLeft: OpID?, originRight: OpID?, scalars: some TypedScalars
    ) -> Bool {
        if arrivals.containsAny(id, count: scalars.count) {
            // Here already, or part of it is: a run joined from ops of
            // which the first ones arrived before. The rest types on.
            guard let present = arrivals.run(from: id) else {
                // A run that takes ids some characters here have, but not
                // its first, is not one any replica made: it changes nothing.
                return true
            }
            let had = present.count
            guard had < scalars.count else { return true }
            return integrate(
                id.advanced(by: had), originLeft: id.advanced(by: had - 1), originRight: originRight,
                scalars: scalars.after(had))
        }
        var cursor = tree.start
        var left = TextSpan.none
        if let originLeft {
            guard let found = arrivals.arrival(of: originLeft) else { return false }
            left = Int32(found)
            cursor = tree.after(tree.cursor(of: found))
        }
        var right = TextSpan.none
        if let originRight {
            guard let found = arrivals.arrival(of: originRight) else { return false }
            right = Int32(found)
        }
        guard scalars.count > 0 else { return true }
        // Positions (tombstones counted) of the origins, and of the others'
        // origins when they differ: found only when a scan needs them.
        var leftPosition: Int?
        var rightPosition: Int?
        var destination = cursor
        var scanning = false
        while let place = tree.normalized(cursor) {
            if !scanning { destination = place }
            let span = tree[place]
            let other = span.arrival(at: place.offset)
            if other == right { break }
            let otherLeft = span.originLeft(at: place.offset)
            if otherLeft == left {
                if span.originRight == right {
                    if Self.goesFirst(id, before: arrivals.id(of: Int(other))) { break }
                    scanning = false
                } else {
                    if rightPosition == nil { rightPosition = position(of: right, missing: tree.totalCount) }
                    scanning = position(of: span.originRight, missing: tree.totalCount) < rightPosition ?? 0
                }
            } else {
                if leftPosition == nil { leftPosition = position(of: left, missing: -1) }
                if position(of: otherLeft, missing: -1) < leftPosition ?? 0 { break }
            }
            // On past the rest of the span. An op a replica made never
            // names a right origin further inside a span than where the
            // scan enters it (the character before would have been its
            // left origin); a forged one might, and the scan still stops.
            var end = span.length
            if let offset = span.offset(of: right), offset > place.offset {
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
        land(id, scalars, originLeft: left, originRight: right, at: destination)
        return true
    }

    /// Where a character is among all, tombstones counted; `missing` for
    /// `TextSpan.none`.
    private func position(of arrival: Int32, missing: Int) -> Int {
        guard arrival != TextSpan.none else { return missing }
        return tree.position(of: tree.cursor(of: Int(arrival)), all: true)
    }

    /// Characters `id`, `id + 1`, … arrive, to stand at `place`.
    mutating func land(
        _ id: OpID, _ scalars: some TypedScalars, originLeft: Int32, originRight: Int32,
        at place: SpanTree.Cursor
    ) {
        // Callers have checked that the characters are new.
        guard let (first, idsGoOn) = arrive(id, scalars) else { preconditionFailure("characters \(id) arrived twice") }
        let span = TextSpan(
            first: first, length: scalars.count, originLeft: originLeft, originRight: originRight, isDeleted: false)
        tree.insert(span, at: place, idsGoOn: idsGoOn)
    }

    /// Puts characters that arrived last at the text's end, as a snapshot
    /// gives them.
    mutating func append(_ span: TextSpan, idsGoOn: Bool) {
        tree.insert(span, at: tree.end, idsGoOn: idsGoOn)
    }

    /// Numbers characters and stores their scalars: their first arrival,
    /// and whether their ids go on from the last arrival's; nil, numbering
    /// none, when some of them are here already.
    mutating func arrive(_ id: OpID, _ scalars: some TypedScalars) -> (first: Int, idsGoOn: Bool)? {
        guard let (first, idsGoOn) = arrivals.add(id, count: scalars.count) else { return nil }
        scalars.append(to: &content)
        return (first, idsGoOn)
    }

    /// Numbers a snapshot's characters and stores their scalars, in a
    /// text that has none yet: for each run, whether its ids go on from
    /// the run before; nil, when some character is in it twice.
    mutating func arriveAll(_ snapshot: TextSnapshot) -> [Bool]? {
        guard let idsGoOn = arrivals.addAll(snapshot.runs) else { return nil }
        snapshot.scalars.withUnsafeBufferPointer { scalars in
            var visible = 0
            for run in snapshot.runs {
                if run.isDeleted {
                    content.appendUnknown(run.count)
                } else {
                    content.append(contentsOf: UnsafeBufferPointer(rebasing: scalars[visible..<visible + run.count]))
                    visible += run.count
                }
            }
        }
        return idsGoOn
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

        /// A deleted character's scalar is not part of the state
        /// (`TextSnapshot`).
        static func == (lhs: Item, rhs: Item) -> Bool {
            lhs.id == rhs.id && lhs.isDeleted == rhs.isDeleted && (lhs.isDeleted || lhs.scalar == rhs.scalar)
        }
    }

    var items: [Item] {
        var items: [Item] = []
        tree.forEachSpan { span in
            let first = arrivals.id(of: span.first)
            for offset in 0..<span.length {
                items.append(Item(id: first.advanced(by: offset), scalar: content[span.first + offset], isDeleted: span.isDeleted))
            }
        }
        return items
    }
}
