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
    static let leafCapacity = 32
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

    // Leaves: spans in slots of `leafStride`.
    private var spans: [TextSpan] = []
    private var spanCounts: [Int] = []
    private var leafParents: [Int32] = []
    /// The leaf after each in document order.
    private var leafNexts: [Int32] = []

    // Inner nodes: children and their counts in slots of `innerStride`.
    private var children: [Int32] = []
    private var visibleCounts: [Int] = []
    private var totalCounts: [Int] = []
    private var childCounts: [Int] = []
    private var innerParents: [Int32] = []
    private var holdsLeaves: [Bool] = []

    private var root: Int32 = 0
    /// The leaf at the text's end, where a snapshot's spans are appended.
    private var lastLeaf: Int32 = 0
    /// Which leaf holds each character.
    private(set) var index = SpanIndex()

    init() {
        let leaf = newLeaf(parent: 0, next: Self.none)
        let inner = newInner(parent: Self.none, holdsLeaves: true)
        children[0] = leaf
        childCounts[Int(inner)] = 1
    }

    var innerCount: Int { childCounts.count }
    private(set) var visibleCount = 0
    private(set) var totalCount = 0

    subscript(cursor: Cursor) -> TextSpan {
        spans[Int(cursor.leaf) * Self.leafStride + cursor.span]
    }

    func spanCount(of leaf: Int32) -> Int { spanCounts[Int(leaf)] }

    // MARK: Finding

    /// The place of the character with `id`, if it has arrived.
    func cursor(of id: OpID) -> Cursor? {
        guard let leaf = index.leaf(of: id) else { return nil }
        let base = Int(leaf) * Self.leafStride
        for position in 0..<spanCounts[Int(leaf)] {
            if let offset = spans[base + position].offset(of: id) {
                return Cursor(leaf: leaf, span: position, offset: offset)
            }
        }
        return nil
    }

    /// The place of the visible character at `position` (0 ..< visibleCount).
    func cursor(visible position: Int) -> Cursor {
        var remaining = position
        var node = Int(root)
        while true {
            let base = node * Self.innerStride
            let last = childCounts[node] - 1
            var child = 0
            while child < last, remaining >= visibleCounts[base + child] {
                remaining -= visibleCounts[base + child]
                child += 1
            }
            if holdsLeaves[node] {
                let leaf = children[base + child]
                let first = Int(leaf) * Self.leafStride
                let count = spanCounts[Int(leaf)]
                for position in 0..<count where !spans[first + position].isDeleted {
                    let length = spans[first + position].length
                    if remaining < length { return Cursor(leaf: leaf, span: position, offset: remaining) }
                    remaining -= length
                }
                return Cursor(leaf: leaf, span: count, offset: 0)
            }
            node = Int(children[base + child])
        }
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
        var child = cursor.leaf
        var node = leafParents[Int(cursor.leaf)]
        while node != Self.none {
            let base = Int(node) * Self.innerStride
            var slot = 0
            while children[base + slot] != child {
                position += all ? totalCounts[base + slot] : visibleCounts[base + slot]
                slot += 1
            }
            child = node
            node = innerParents[Int(node)]
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

    /// The id of the character at a place, moving past a leaf's end; nil
    /// at the text's end.
    func id(at place: Cursor) -> OpID? {
        normalized(place).map { self[$0].id(at: $0.offset) }
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

    /// Puts `span` at `cursor` (cutting the span there if the place is
    /// inside it), joining the span before when `span` continues it.
    mutating func insert(_ span: TextSpan, at cursor: Cursor) {
        let first = Int(cursor.leaf) * Self.leafStride
        var position = cursor.span
        if cursor.offset > 0 {
            let right = spans[first + position].split(at: cursor.offset)
            position += 1
            insertSpan(right, in: cursor.leaf, at: position)
        }
        if position > 0, spans[first + position - 1].isContinued(by: span) {
            spans[first + position - 1].length += span.length
        } else {
            insertSpan(span, in: cursor.leaf, at: position)
        }
        index.assign(span.first, count: span.length, to: cursor.leaf)
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
        var at = first + count
        while at > first + position {
            spans[at] = spans[at - 1]
            at -= 1
        }
        spans[first + position] = span
        spanCounts[Int(leaf)] = count + 1
    }

    private mutating func adjustCounts(of leaf: Int32, visible: Int, total: Int) {
        visibleCount += visible
        totalCount += total
        var child = leaf
        var node = leafParents[Int(leaf)]
        while node != Self.none {
            let slot = slot(of: child, in: node)
            visibleCounts[slot] += visible
            totalCounts[slot] += total
            child = node
            node = innerParents[Int(node)]
        }
    }

    /// Where in the inner slots `child` of `node` is counted.
    private func slot(of child: Int32, in node: Int32) -> Int {
        var slot = Int(node) * Self.innerStride
        while children[slot] != child { slot += 1 }
        return slot
    }

    private mutating func newLeaf(parent: Int32, next: Int32) -> Int32 {
        let leaf = Int32(spanCounts.count)
        let filler = TextSpan(first: .unwritten, length: 0, content: 0, originLeft: nil, originRight: nil, isDeleted: true)
        spans.append(contentsOf: repeatElement(filler, count: Self.leafStride))
        spanCounts.append(0)
        leafParents.append(parent)
        leafNexts.append(next)
        return leaf
    }

    private mutating func newInner(parent: Int32, holdsLeaves leaves: Bool) -> Int32 {
        let node = Int32(childCounts.count)
        children.append(contentsOf: repeatElement(Self.none, count: Self.innerStride))
        visibleCounts.append(contentsOf: repeatElement(0, count: Self.innerStride))
        totalCounts.append(contentsOf: repeatElement(0, count: Self.innerStride))
        childCounts.append(0)
        innerParents.append(parent)
        holdsLeaves.append(leaves)
        return node
    }

    /// Moves the spans from `at` (at least half of them) to a new leaf
    /// after this one.
    private mutating func splitLeaf(_ leaf: Int32, at: Int = 0) {
        let count = spanCounts[Int(leaf)]
        let half = max(count / 2, min(at, count - 1))
        let parent = leafParents[Int(leaf)]
        let moved = newLeaf(parent: parent, next: leafNexts[Int(leaf)])
        leafNexts[Int(leaf)] = moved
        if lastLeaf == leaf { lastLeaf = moved }
        let from = Int(leaf) * Self.leafStride
        let to = Int(moved) * Self.leafStride
        var visible = 0
        var total = 0
        // Spans whose IDs follow on (a run cut by deletes) move in one
        // assignment: the index's work is per range of IDs, not per span.
        var pending: (first: OpID, count: Int)?
        for at in half..<count {
            let span = spans[from + at]
            spans[to + at - half] = span
            visible += span.visibleLength
            total += span.length
            if let run = pending, run.first.advanced(by: run.count) == span.first {
                pending = (run.first, run.count + span.length)
            } else {
                if let run = pending { index.assign(run.first, count: run.count, to: moved) }
                pending = (span.first, span.length)
            }
        }
        if let run = pending { index.assign(run.first, count: run.count, to: moved) }
        spanCounts[Int(leaf)] = half
        spanCounts[Int(moved)] = count - half
        addSibling(moved, after: leaf, in: parent, visible: visible, total: total)
    }

    /// Puts `new`, holding `visible` and `total` characters taken from
    /// `old`, right after it in `parent`, splitting the parent when full.
    private mutating func addSibling(_ new: Int32, after old: Int32, in parent: Int32, visible: Int, total: Int) {
        let slot = slot(of: old, in: parent)
        visibleCounts[slot] -= visible
        totalCounts[slot] -= total
        let end = Int(parent) * Self.innerStride + childCounts[Int(parent)]
        var at = end
        while at > slot + 1 {
            children[at] = children[at - 1]
            visibleCounts[at] = visibleCounts[at - 1]
            totalCounts[at] = totalCounts[at - 1]
            at -= 1
        }
        children[slot + 1] = new
        visibleCounts[slot + 1] = visible
        totalCounts[slot + 1] = total
        childCounts[Int(parent)] += 1
        if childCounts[Int(parent)] > Self.innerCapacity { splitInner(parent) }
    }

    private mutating func splitInner(_ node: Int32) {
        let count = childCounts[Int(node)]
        let half = count / 2
        let parent = innerParents[Int(node)]
        let moved = newInner(parent: parent, holdsLeaves: holdsLeaves[Int(node)])
        let from = Int(node) * Self.innerStride
        let to = Int(moved) * Self.innerStride
        var visible = 0
        var total = 0
        for at in half..<count {
            let child = children[from + at]
            children[to + at - half] = child
            visibleCounts[to + at - half] = visibleCounts[from + at]
            totalCounts[to + at - half] = totalCounts[from + at]
            visible += visibleCounts[from + at]
            total += totalCounts[from + at]
            if holdsLeaves[Int(node)] { leafParents[Int(child)] = moved } else { innerParents[Int(child)] = moved }
        }
        childCounts[Int(node)] = half
        childCounts[Int(moved)] = count - half
        if parent == Self.none {
            let newRoot = newInner(parent: Self.none, holdsLeaves: false)
            let base = Int(newRoot) * Self.innerStride
            children[base] = node
            visibleCounts[base] = visibleCount - visible
            totalCounts[base] = totalCount - total
            children[base + 1] = moved
            visibleCounts[base + 1] = visible
            totalCounts[base + 1] = total
            childCounts[Int(newRoot)] = 2
            innerParents[Int(node)] = newRoot
            innerParents[Int(moved)] = newRoot
            root = newRoot
        } else {
            addSibling(moved, after: node, in: parent, visible: visible, total: total)
        }
    }
}
