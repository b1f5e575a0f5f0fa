/// Every span of a text in document order, tombstones included, in a
/// B-tree whose inner nodes count each child's characters twice over: as
/// they read (deleted ones left out) and in all. Finding the character at a
/// visible position, or the position of a character, walks one path of the
/// tree, as diamond-types' content tree does (src/ost/content_tree.rs).
///
/// Nodes are slots in flat arrays, a fixed stride apart, naming each other
/// by index: no node owns an array of its own, so walking the tree neither
/// allocates nor counts references, and the tree is a value like the rest
/// of the model. Spans are never removed (a delete marks them), so nodes
/// only split, never merge.
struct SpanTree: Sendable {
    static let leafCapacity = 16
    static let innerCapacity = 16
    static let none: Int32 = -1
    /// Slots a node holds: room for the one or two more that an edit adds
    /// before the node splits.
    private static let leafStride = leafCapacity + 2
    private static let innerStride = innerCapacity + 1

    /// A place in the text: before the character at `offset` in the span at
    /// `span` of `leaf`, or, with `span` past the leaf's spans, at its end.
    struct Cursor: Sendable, Equatable {
        var leaf: Int32
        var span: Int
        var offset: Int
    }

    /// A child's characters: those that read and all.
    private struct Counts: Sendable {
        var visible: Int
        var total: Int
    }

    // Leaves: spans in slots of `leafStride`.
    private var spans: [TextSpan] = []
    private var spanCounts: [Int] = []
    /// Where each leaf is counted: its slot in its parent's children, so
    /// that counting an edit up the tree searches no node.
    private var leafSlots: [Int32] = []
    /// The leaf after each in document order.
    private var leafNexts: [Int32] = []

    // Inner nodes: children and their counts in slots of `innerStride`.
    private var children: [Int32] = []
    private var counts: [Counts] = []
    private var childCounts: [Int] = []
    /// Each inner node's slot in its parent, `none` for the root.
    private var innerSlots: [Int32] = []
    private var holdsLeaves: [Bool] = []

    private var root: Int32 = 0
    /// The leaf at the text's end, where a snapshot's spans are appended.
    private var lastLeaf: Int32 = 0
    /// The leaf holding each character, by arrival: the tree's index from
    /// what ops name to where it is. Kept as leaves split.
    private var leafOfArrival: [Int32] = []
    /// The leaf `cursorNearRecent` found last, and the visible characters
    /// before it; forgotten when any other leaf's count changes.
    private var recentLeaf: Int32 = SpanTree.none
    private var recentStart = 0

    init() {
        let leaf = newLeaf(next: Self.none)
        let inner = newInner(holdsLeaves: true)
        children[0] = leaf
        leafSlots[Int(leaf)] = 0
        childCounts[Int(inner)] = 1
    }

    /// The node a slot belongs to.
    @inline(__always)
    private func node(of slot: Int32) -> Int { Int(slot) / Self.innerStride }

    var innerCount: Int { childCounts.count }

    /// Room for `arrivals` characters in `spans` spans appended in order,
    /// which fill each leaf before the next.
    mutating func reserveCapacity(arrivals: Int, spans: Int) {
        leafOfArrival.reserveCapacity(arrivals)
        let leaves = spans / Self.leafCapacity + 2
        self.spans.reserveCapacity(leaves * Self.leafStride)
        spanCounts.reserveCapacity(leaves)
        leafSlots.reserveCapacity(leaves)
        leafNexts.reserveCapacity(leaves)
    }

    var storageBytes: Int {
        spans.capacity * MemoryLayout<TextSpan>.stride + (spanCounts.capacity + childCounts.capacity) * 8
            + (leafSlots.capacity + leafNexts.capacity + children.capacity + innerSlots.capacity
                + leafOfArrival.capacity) * 4 + counts.capacity * MemoryLayout<Counts>.stride + holdsLeaves.capacity
    }
    private(set) var visibleCount = 0
    private(set) var totalCount = 0

    subscript(cursor: Cursor) -> TextSpan {
        spans[Int(cursor.leaf) * Self.leafStride + cursor.span]
    }

    func spanCount(of leaf: Int32) -> Int { spanCounts[Int(leaf)] }

    // MARK: Finding

    /// The place of the character that arrived `arrival`th.
    func cursor(of arrival: Int) -> Cursor {
        let leaf = leafOfArrival[arrival]
        let number = Int32(truncatingIfNeeded: arrival)
        let base = Int(leaf) * Self.leafStride
        for position in 0..<spanCounts[Int(leaf)] {
            if let offset = spans[base + position].offset(of: number) {
                return Cursor(leaf: leaf, span: position, offset: offset)
            }
        }
        preconditionFailure("character \(arrival) is in its leaf")
    }

    /// The place of the visible character at `position` (0 ..< visibleCount).
    func cursor(visible position: Int) -> Cursor {
        leafCursor(visible: position).cursor
    }

    /// The same, remembering the leaf for the next call: a local edit is
    /// mostly near the last one, and finding a place in the same leaf then
    /// costs no walk down the tree (as diamond-types keeps a cursor).
    mutating func cursorNearRecent(visible position: Int) -> Cursor {
        if recentLeaf != Self.none {
            let remaining = position - recentStart
            if remaining >= 0, remaining < counts[Int(leafSlots[Int(recentLeaf)])].visible {
                return cursor(in: recentLeaf, visible: remaining)
            }
        }
        let (cursor, start) = leafCursor(visible: position)
        recentLeaf = cursor.leaf
        recentStart = start
        return cursor
    }

    /// The place, and how many visible characters its leaf's first one
    /// has before it.
    private func leafCursor(visible position: Int) -> (cursor: Cursor, leafStart: Int) {
        var remaining = position
        var node = Int(root)
        while true {
            let base = node * Self.innerStride
            let last = childCounts[node] - 1
            var child = 0
            while child < last, remaining >= counts[base + child].visible {
                remaining -= counts[base + child].visible
                child += 1
            }
            if holdsLeaves[node] {
                let leaf = children[base + child]
                return (cursor(in: leaf, visible: remaining), position - remaining)
            }
            node = Int(children[base + child])
        }
    }

    /// The place of the visible character `remaining` characters into a
    /// leaf, or the leaf's end.
    private func cursor(in leaf: Int32, visible remaining: Int) -> Cursor {
        var remaining = remaining
        let first = Int(leaf) * Self.leafStride
        let count = spanCounts[Int(leaf)]
        for position in 0..<count where !spans[first + position].isDeleted {
            let length = spans[first + position].length
            if remaining < length { return Cursor(leaf: leaf, span: position, offset: remaining) }
            remaining -= length
        }
        return Cursor(leaf: leaf, span: count, offset: 0)
    }

    /// How many characters, tombstones included (`all`) or not, come before
    /// the place.
    func position(of cursor: Cursor, all: Bool) -> Int {
        let first = Int(cursor.leaf) * Self.leafStride
        var position = 0
        for at in 0..<cursor.span {
            position += all ? spans[first + at].length : spans[first + at].visibleLength
        }
        if cursor.span < spanCounts[Int(cursor.leaf)], all || !spans[first + cursor.span].isDeleted {
            position += cursor.offset
        }
        var slot = leafSlots[Int(cursor.leaf)]
        while slot != Self.none {
            let node = node(of: slot)
            for before in node * Self.innerStride..<Int(slot) {
                position += all ? counts[before].total : counts[before].visible
            }
            slot = innerSlots[node]
        }
        return position
    }

    /// The same place, moved off a leaf's end onto the next leaf's first
    /// span; nil at the text's end.
    func normalized(_ cursor: Cursor) -> Cursor? {
        var cursor = cursor
        while cursor.span >= spanCounts[Int(cursor.leaf)] {
            let next = leafNexts[Int(cursor.leaf)]
            if next == Self.none { return nil }
            cursor = Cursor(leaf: next, span: 0, offset: 0)
        }
        return cursor
    }

    /// The place right after the character at `cursor`, in its leaf (a
    /// leaf's end when the character ends it).
    func after(_ cursor: Cursor) -> Cursor {
        var next = cursor
        next.offset += 1
        if next.offset == self[cursor].length {
            next.span += 1
            next.offset = 0
        }
        return next
    }

    /// The arrival of the character at a place, moving past a leaf's end;
    /// nil at the text's end.
    func arrival(at place: Cursor) -> Int32? {
        normalized(place).map { self[$0].arrival(at: $0.offset) }
    }

    /// The place before the first character (the start of the first leaf).
    var start: Cursor { Cursor(leaf: 0, span: 0, offset: 0) }

    /// The place after the last character.
    var end: Cursor { Cursor(leaf: lastLeaf, span: spanCounts[Int(lastLeaf)], offset: 0) }

    /// Every span in document order.
    func forEachSpan(_ body: (TextSpan) -> Void) {
        var leaf: Int32 = 0
        while leaf != Self.none {
            let first = Int(leaf) * Self.leafStride
            for at in 0..<spanCounts[Int(leaf)] { body(spans[first + at]) }
            leaf = leafNexts[Int(leaf)]
        }
    }

    // MARK: Changing

    /// Puts `span`, the characters to arrive next, at `cursor` (cutting the
    /// span there if the place is inside it), joining the span before when
    /// `span` continues it and their ids go on (`idsGoOn`).
    mutating func insert(_ span: TextSpan, at cursor: Cursor, idsGoOn: Bool) {
        precondition(span.first == leafOfArrival.count, "spans arrive in order")
        let first = Int(cursor.leaf) * Self.leafStride
        var position = cursor.span
        if cursor.offset > 0 {
            let right = spans[first + position].split(at: cursor.offset)
            position += 1
            insertSpan(right, in: cursor.leaf, at: position)
        }
        if idsGoOn, position > 0, spans[first + position - 1].isContinued(by: span) {
            spans[first + position - 1].length += span.length
        } else {
            insertSpan(span, in: cursor.leaf, at: position)
        }
        // Most inserts are a keystroke: one append, not a repeated one.
        if span.length == 1 {
            leafOfArrival.append(cursor.leaf)
        } else {
            leafOfArrival.append(contentsOf: repeatElement(cursor.leaf, count: span.length))
        }
        adjustCounts(of: cursor.leaf, visible: span.visibleLength, total: span.length)
        // Typing goes on where it went: the new span starts the new leaf,
        // so a run of inserts at one place fills leaves instead of moving
        // half of one at every split.
        if spanCounts[Int(cursor.leaf)] > Self.leafCapacity { splitLeaf(cursor.leaf, at: position) }
    }

    /// Deletes up to `count` characters from `cursor` within its span; how
    /// many it covered (deleted already or not).
    mutating func delete(at cursor: Cursor, count: Int) -> Int {
        let first = Int(cursor.leaf) * Self.leafStride
        var position = cursor.span
        let span = spans[first + position]
        let covered = min(count, span.length - cursor.offset)
        guard !span.isDeleted else { return covered }
        if cursor.offset > 0 {
            let right = spans[first + position].split(at: cursor.offset)
            position += 1
            insertSpan(right, in: cursor.leaf, at: position)
        }
        if covered < spans[first + position].length {
            let right = spans[first + position].split(at: covered)
            insertSpan(right, in: cursor.leaf, at: position + 1)
        }
        spans[first + position].isDeleted = true
        adjustCounts(of: cursor.leaf, visible: -covered, total: 0)
        if spanCounts[Int(cursor.leaf)] > Self.leafCapacity { splitLeaf(cursor.leaf, at: position) }
        return covered
    }

    private mutating func insertSpan(_ span: TextSpan, in leaf: Int32, at position: Int) {
        let first = Int(leaf) * Self.leafStride
        let count = spanCounts[Int(leaf)]
        precondition(count < Self.leafStride && position <= count, "room in the leaf")
        spans.withUnsafeMutableBufferPointer { spans in
            // Spans are plain values: one move of the bytes.
            guard let base = spans.baseAddress else { return }
            let from = UnsafeMutableRawPointer(base + first + position)
            (from + MemoryLayout<TextSpan>.stride).copyMemory(from: from, byteCount: (count - position) * MemoryLayout<TextSpan>.stride)
            spans[first + position] = span
        }
        spanCounts[Int(leaf)] = count + 1
    }

    private mutating func adjustCounts(of leaf: Int32, visible: Int, total: Int) {
        if leaf != recentLeaf { recentLeaf = Self.none }
        visibleCount += visible
        totalCount += total
        var slot = leafSlots[Int(leaf)]
        while slot != Self.none {
            counts[Int(slot)].visible += visible
            counts[Int(slot)].total += total
            slot = innerSlots[node(of: slot)]
        }
    }

    private mutating func newLeaf(next: Int32) -> Int32 {
        let leaf = Int32(spanCounts.count)
        let filler = TextSpan(first: 0, length: 0, originLeft: TextSpan.none, originRight: TextSpan.none, isDeleted: false)
        spans.append(contentsOf: repeatElement(filler, count: Self.leafStride))
        spanCounts.append(0)
        leafSlots.append(Self.none)
        leafNexts.append(next)
        return leaf
    }

    private mutating func newInner(holdsLeaves leaves: Bool) -> Int32 {
        let node = Int32(childCounts.count)
        children.append(contentsOf: repeatElement(Self.none, count: Self.innerStride))
        counts.append(contentsOf: repeatElement(Counts(visible: 0, total: 0), count: Self.innerStride))
        childCounts.append(0)
        innerSlots.append(Self.none)
        holdsLeaves.append(leaves)
        return node
    }

    /// Records that `child` of a node is counted at `slot`.
    private mutating func place(_ child: Int32, at slot: Int, leaf: Bool) {
        children[slot] = child
        if leaf { leafSlots[Int(child)] = Int32(slot) } else { innerSlots[Int(child)] = Int32(slot) }
    }

    /// Moves the spans from `at` (at least half of them) to a new leaf
    /// after this one.
    private mutating func splitLeaf(_ leaf: Int32, at: Int = 0) {
        let count = spanCounts[Int(leaf)]
        let half = max(count / 2, min(at, count - 1))
        let moved = newLeaf(next: leafNexts[Int(leaf)])
        leafNexts[Int(leaf)] = moved
        if lastLeaf == leaf { lastLeaf = moved }
        let from = Int(leaf) * Self.leafStride
        let to = Int(moved) * Self.leafStride
        var visible = 0
        var total = 0
        leafOfArrival.withUnsafeMutableBufferPointer { leafOfArrival in
            for at in half..<count {
                let span = spans[from + at]
                spans[to + at - half] = span
                visible += span.visibleLength
                total += span.length
                UnsafeMutableBufferPointer(rebasing: leafOfArrival[span.first..<span.first + span.length])
                    .update(repeating: moved)
            }
        }
        spanCounts[Int(leaf)] = half
        spanCounts[Int(moved)] = count - half
        addSibling(moved, after: Int(leafSlots[Int(leaf)]), leaf: true, visible: visible, total: total)
    }

    /// Puts `new`, holding `visible` and `total` characters taken from the
    /// child at `slot`, right after it, splitting their parent when full.
    private mutating func addSibling(_ new: Int32, after slot: Int, leaf: Bool, visible: Int, total: Int) {
        let parent = slot / Self.innerStride
        counts[slot].visible -= visible
        counts[slot].total -= total
        var at = parent * Self.innerStride + childCounts[parent]
        while at > slot + 1 {
            place(children[at - 1], at: at, leaf: leaf)
            counts[at] = counts[at - 1]
            at -= 1
        }
        place(new, at: slot + 1, leaf: leaf)
        counts[slot + 1] = Counts(visible: visible, total: total)
        childCounts[parent] += 1
        if childCounts[parent] > Self.innerCapacity { splitInner(Int32(parent)) }
    }

    private mutating func splitInner(_ node: Int32) {
        let count = childCounts[Int(node)]
        let half = count / 2
        let leaves = holdsLeaves[Int(node)]
        let moved = newInner(holdsLeaves: leaves)
        let from = Int(node) * Self.innerStride
        let to = Int(moved) * Self.innerStride
        var visible = 0
        var total = 0
        for at in half..<count {
            place(children[from + at], at: to + at - half, leaf: leaves)
            counts[to + at - half] = counts[from + at]
            visible += counts[from + at].visible
            total += counts[from + at].total
        }
        childCounts[Int(node)] = half
        childCounts[Int(moved)] = count - half
        let slot = innerSlots[Int(node)]
        if slot == Self.none {
            let newRoot = newInner(holdsLeaves: false)
            let base = Int(newRoot) * Self.innerStride
            place(node, at: base, leaf: false)
            counts[base] = Counts(visible: visibleCount - visible, total: totalCount - total)
            place(moved, at: base + 1, leaf: false)
            counts[base + 1] = Counts(visible: visible, total: total)
            childCounts[Int(newRoot)] = 2
            root = newRoot
        } else {
            addSibling(moved, after: Int(slot), leaf: false, visible: visible, total: total)
        }
    }
}
