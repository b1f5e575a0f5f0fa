/// Every span of a text in document order, tombstones included, in a
/// B-tree whose inner nodes count each child's characters twice over: as
/// they read (deleted ones left out) and in all. Finding the character at a
/// visible position, or the position of a character, walks one path of the
/// tree, as diamond-types' content tree does (src/ost/content_tree.rs).
///
/// Nodes live in two arrays and name each other by index, so the tree is a
/// value like the rest of the model, copied only when shared. Spans are
/// never removed (a delete marks them), so nodes only split, never merge.
struct SpanTree: Sendable {
    static let leafCapacity = 32
    static let innerCapacity = 16
    static let none: Int32 = -1

    struct Leaf: Sendable {
        var spans: [TextSpan]
        var parent: Int32
        /// The leaf after this one in document order.
        var next: Int32
    }

    struct Inner: Sendable {
        var children: [Int32]
        var visible: [Int]
        var total: [Int]
        var parent: Int32
        var holdsLeaves: Bool
    }

    /// A place in the text: before the character at `offset` in the span at
    /// `span` of `leaf`, or, with `span == spans.count`, at the leaf's end.
    struct Cursor: Sendable, Equatable {
        var leaf: Int32
        var span: Int
        var offset: Int
    }

    private(set) var leaves: [Leaf]
    private(set) var inners: [Inner]
    private var root: Int32
    /// Which leaf holds each character.
    private(set) var index = SpanIndex()

    init() {
        leaves = [Leaf(spans: [], parent: 0, next: Self.none)]
        inners = [Inner(children: [0], visible: [0], total: [0], parent: Self.none, holdsLeaves: true)]
        root = 0
    }

    var visibleCount: Int { inners[Int(root)].visible.reduce(0, +) }
    var totalCount: Int { inners[Int(root)].total.reduce(0, +) }

    subscript(cursor: Cursor) -> TextSpan { leaves[Int(cursor.leaf)].spans[cursor.span] }

    // MARK: Finding

    /// The place of the character with `id`, if it has arrived.
    func cursor(of id: OpID) -> Cursor? {
        guard let leaf = index.leaf(of: id) else { return nil }
        let spans = leaves[Int(leaf)].spans
        for position in spans.indices {
            if let offset = spans[position].offset(of: id) {
                return Cursor(leaf: leaf, span: position, offset: offset)
            }
        }
        return nil
    }

    /// The place of the visible character at `position` (0 ..< visibleCount).
    func cursor(visible position: Int) -> Cursor {
        var remaining = position
        var node = root
        while true {
            let inner = inners[Int(node)]
            var child = 0
            while child < inner.children.count - 1, remaining >= inner.visible[child] {
                remaining -= inner.visible[child]
                child += 1
            }
            if inner.holdsLeaves {
                let leaf = inner.children[child]
                let spans = leaves[Int(leaf)].spans
                for position in spans.indices where !spans[position].isDeleted {
                    if remaining < spans[position].length {
                        return Cursor(leaf: leaf, span: position, offset: remaining)
                    }
                    remaining -= spans[position].length
                }
                return Cursor(leaf: leaf, span: spans.count, offset: 0)
            }
            node = inner.children[child]
        }
    }

    /// How many characters, tombstones included (`all`) or not, come before
    /// the place.
    func position(of cursor: Cursor, all: Bool) -> Int {
        let spans = leaves[Int(cursor.leaf)].spans
        var position = 0
        for span in spans[..<cursor.span] { position += all ? span.length : span.visibleLength }
        if cursor.span < spans.count, all || !spans[cursor.span].isDeleted { position += cursor.offset }
        var child = cursor.leaf
        var node = leaves[Int(cursor.leaf)].parent
        while node != Self.none {
            let inner = inners[Int(node)]
            for slot in inner.children.indices {
                if inner.children[slot] == child { break }
                position += all ? inner.total[slot] : inner.visible[slot]
            }
            child = node
            node = inner.parent
        }
        return position
    }

    /// The place one character on, crossing into the next leaf; nil past the
    /// last character.
    func advanced(_ cursor: Cursor) -> Cursor? {
        var next = cursor
        next.offset += 1
        if next.offset >= self[cursor].length {
            next.span += 1
            next.offset = 0
        }
        return normalized(next)
    }

    /// The same place, moved off a leaf's end onto the next leaf's first
    /// span; nil at the text's end.
    func normalized(_ cursor: Cursor) -> Cursor? {
        var cursor = cursor
        while cursor.span >= leaves[Int(cursor.leaf)].spans.count {
            let next = leaves[Int(cursor.leaf)].next
            if next == Self.none { return nil }
            cursor = Cursor(leaf: next, span: 0, offset: 0)
        }
        return cursor
    }

    /// The place before the first character (the start of the first leaf).
    var start: Cursor { Cursor(leaf: 0, span: 0, offset: 0) }

    /// Every span in document order.
    func forEachSpan(_ body: (TextSpan) -> Void) {
        var leaf: Int32 = 0
        while leaf != Self.none {
            for span in leaves[Int(leaf)].spans { body(span) }
            leaf = leaves[Int(leaf)].next
        }
    }

    // MARK: Changing

    /// Puts `span` at `cursor` (cutting the span there if the place is
    /// inside it), joining the span before when `span` continues it.
    mutating func insert(_ span: TextSpan, at cursor: Cursor) {
        let leaf = Int(cursor.leaf)
        var position = cursor.span
        if cursor.offset > 0 {
            let right = leaves[leaf].spans[position].split(at: cursor.offset)
            position += 1
            leaves[leaf].spans.insert(right, at: position)
        }
        if position > 0, leaves[leaf].spans[position - 1].isContinued(by: span) {
            leaves[leaf].spans[position - 1].length += span.length
        } else {
            leaves[leaf].spans.insert(span, at: position)
        }
        index.assign(span.first, count: span.length, to: cursor.leaf)
        adjustCounts(of: cursor.leaf, visible: span.visibleLength, total: span.length)
        if leaves[leaf].spans.count > Self.leafCapacity { splitLeaf(cursor.leaf) }
    }

    /// Deletes up to `count` characters from `cursor` within its span; how
    /// many it covered (deleted already or not).
    mutating func delete(at cursor: Cursor, count: Int) -> Int {
        let leaf = Int(cursor.leaf)
        var position = cursor.span
        let span = leaves[leaf].spans[position]
        let covered = min(count, span.length - cursor.offset)
        guard !span.isDeleted else { return covered }
        if cursor.offset > 0 {
            let right = leaves[leaf].spans[position].split(at: cursor.offset)
            position += 1
            leaves[leaf].spans.insert(right, at: position)
        }
        if covered < leaves[leaf].spans[position].length {
            let right = leaves[leaf].spans[position].split(at: covered)
            leaves[leaf].spans.insert(right, at: position + 1)
        }
        leaves[leaf].spans[position].isDeleted = true
        adjustCounts(of: cursor.leaf, visible: -covered, total: 0)
        if leaves[leaf].spans.count > Self.leafCapacity { splitLeaf(cursor.leaf) }
        return covered
    }

    private mutating func adjustCounts(of leaf: Int32, visible: Int, total: Int) {
        var child = leaf
        var node = leaves[Int(leaf)].parent
        while node != Self.none {
            let slot = slot(of: child, in: node)
            inners[Int(node)].visible[slot] += visible
            inners[Int(node)].total[slot] += total
            child = node
            node = inners[Int(node)].parent
        }
    }

    private func slot(of child: Int32, in node: Int32) -> Int {
        let children = inners[Int(node)].children
        var slot = 0
        while children[slot] != child { slot += 1 }
        return slot
    }

    private mutating func splitLeaf(_ leaf: Int32) {
        let half = leaves[Int(leaf)].spans.count / 2
        let moved = Array(leaves[Int(leaf)].spans[half...])
        leaves[Int(leaf)].spans.removeSubrange(half...)
        let parent = leaves[Int(leaf)].parent
        let newLeaf = Int32(leaves.count)
        var spans: [TextSpan] = []
        spans.reserveCapacity(Self.leafCapacity + 3)
        spans.append(contentsOf: moved)
        leaves.append(Leaf(spans: spans, parent: parent, next: leaves[Int(leaf)].next))
        leaves[Int(leaf)].next = newLeaf
        var visible = 0
        var total = 0
        for span in moved {
            index.assign(span.first, count: span.length, to: newLeaf)
            visible += span.visibleLength
            total += span.length
        }
        addSibling(newLeaf, after: leaf, in: parent, visible: visible, total: total)
    }

    /// Puts `new`, holding `visible` and `total` characters taken from
    /// `old`, right after it in `parent`, splitting the parent when full.
    private mutating func addSibling(_ new: Int32, after old: Int32, in parent: Int32, visible: Int, total: Int) {
        let slot = slot(of: old, in: parent)
        inners[Int(parent)].visible[slot] -= visible
        inners[Int(parent)].total[slot] -= total
        inners[Int(parent)].children.insert(new, at: slot + 1)
        inners[Int(parent)].visible.insert(visible, at: slot + 1)
        inners[Int(parent)].total.insert(total, at: slot + 1)
        if inners[Int(parent)].children.count > Self.innerCapacity { splitInner(parent) }
    }

    private mutating func splitInner(_ node: Int32) {
        let inner = inners[Int(node)]
        let half = inner.children.count / 2
        let newNode = Int32(inners.count)
        let moved = Inner(
            children: Array(inner.children[half...]), visible: Array(inner.visible[half...]),
            total: Array(inner.total[half...]), parent: inner.parent, holdsLeaves: inner.holdsLeaves)
        inners[Int(node)].children.removeSubrange(half...)
        inners[Int(node)].visible.removeSubrange(half...)
        inners[Int(node)].total.removeSubrange(half...)
        inners.append(moved)
        for child in moved.children {
            if moved.holdsLeaves { leaves[Int(child)].parent = newNode } else { inners[Int(child)].parent = newNode }
        }
        let visible = moved.visible.reduce(0, +)
        let total = moved.total.reduce(0, +)
        if inner.parent == Self.none {
            let newRoot = Int32(inners.count)
            inners.append(
                Inner(
                    children: [node, newNode], visible: [inners[Int(node)].visible.reduce(0, +), visible],
                    total: [inners[Int(node)].total.reduce(0, +), total], parent: Self.none, holdsLeaves: false))
            inners[Int(node)].parent = newRoot
            inners[Int(newNode)].parent = newRoot
            root = newRoot
        } else {
            addSibling(newNode, after: node, in: inner.parent, visible: visible, total: total)
        }
    }
}
