/// Characters one replica typed left to right, kept as one entry: ids
/// `first`, `first + 1`, …; the first character's left origin is
/// `originLeft`, each next one's is the character before it; all share
/// `originRight` and whether they are deleted. A run typed at once, or
/// typed a key at a time in one place, stays one span until something
/// lands inside it or deletes part of it.
struct TextSpan: Sendable, Equatable {
    var first: OpID
    private var storedLength: Int32
    /// Where the first character's scalar is in the sequence's store of
    /// every scalar ever typed; the rest follow it there.
    private var storedContent: Int32
    // No origin is stored as `OpID.unwritten`, which no character has: an
    // optional would add a byte and, aligned, 8; this way a span is 57
    // bytes, one cache line with its padding.
    private var storedOriginLeft: OpID
    private var storedOriginRight: OpID
    var isDeleted: Bool

    init(first: OpID, length: Int, content: Int, originLeft: OpID?, originRight: OpID?, isDeleted: Bool) {
        self.first = first
        storedLength = Int32(length)
        storedContent = Int32(content)
        storedOriginLeft = originLeft ?? .unwritten
        storedOriginRight = originRight ?? .unwritten
        self.isDeleted = isDeleted
    }

    var length: Int {
        get { Int(storedLength) }
        set { storedLength = Int32(newValue) }
    }

    var content: Int { Int(storedContent) }

    var originLeft: OpID? { storedOriginLeft == .unwritten ? nil : storedOriginLeft }
    var originRight: OpID? { storedOriginRight == .unwritten ? nil : storedOriginRight }

    var visibleLength: Int { isDeleted ? 0 : length }

    var last: OpID { id(at: length - 1) }

    @inline(__always)
    func id(at offset: Int) -> OpID {
        OpID(counter: first.counter &+ UInt64(offset), replica: first.replica)
    }

    /// The offset of `id` in this span, if it is one of its characters.
    @inline(__always)
    func offset(of id: OpID) -> Int? {
        guard id.replica == first.replica, id.counter >= first.counter,
            id.counter - first.counter < UInt64(length)
        else { return nil }
        return Int(id.counter - first.counter)
    }

    @inline(__always)
    func originLeft(at offset: Int) -> OpID? {
        offset == 0 ? originLeft : id(at: offset - 1)
    }

    /// Cuts the span before `offset` (0 < offset < length): this keeps the
    /// left part and the right part is returned.
    mutating func split(at offset: Int) -> TextSpan {
        let right = TextSpan(
            first: id(at: offset), length: length - offset, content: content + offset,
            originLeft: id(at: offset - 1), originRight: originRight, isDeleted: isDeleted)
        length = offset
        return right
    }

    /// Whether `next`, placed right after this span, continues it: the next
    /// ids of the same replica, typed after its last character toward the
    /// same right origin, deleted alike, its scalars next in the store.
    func isContinued(by next: TextSpan) -> Bool {
        next.first.replica == first.replica && next.first.counter == first.counter &+ UInt64(length)
            && next.content == content + length && next.isDeleted == isDeleted
            && next.originRight == originRight && next.originLeft == last
    }
}
