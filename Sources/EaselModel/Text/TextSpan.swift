/// Characters one replica typed left to right, kept as one entry, named by
/// arrival number (`Arrivals`): `first`, `first + 1`, …, which are also
/// consecutive ids of one replica; the first character's left origin is
/// `originLeft`, each next one's is the character before it; all share
/// `originRight` and whether they are deleted. A run typed at once, or
/// typed a key at a time in one place, stays one span until something
/// lands inside it or deletes part of it.
///
/// 16 bytes: four spans to a cache line, so scanning a leaf touches a
/// quarter of the memory spans of ids would.
struct TextSpan: Sendable, Equatable {
    /// No origin: the text's start on the left, its end on the right.
    static let none: Int32 = -1

    private var storedFirst: Int32
    /// Negative when the characters are deleted, so the flag costs no
    /// padding.
    private var storedLength: Int32
    private(set) var originLeft: Int32
    private(set) var originRight: Int32

    init(first: Int, length: Int, originLeft: Int32, originRight: Int32, isDeleted: Bool) {
        storedFirst = Int32(first)
        storedLength = isDeleted ? -Int32(length) : Int32(length)
        self.originLeft = originLeft
        self.originRight = originRight
    }

    /// The first character's arrival, which is also where its scalar is in
    /// the sequence's store; the rest follow it in both.
    var first: Int { Int(storedFirst) }

    var length: Int {
        get { Int(storedLength.magnitude) }
        set { storedLength = isDeleted ? -Int32(newValue) : Int32(newValue) }
    }

    var isDeleted: Bool {
        get { storedLength < 0 }
        set { if newValue != isDeleted { storedLength = -storedLength } }
    }

    var visibleLength: Int { isDeleted ? 0 : length }

    var last: Int32 { storedFirst + Int32(length) - 1 }

    @inline(__always)
    func arrival(at offset: Int) -> Int32 { storedFirst &+ Int32(truncatingIfNeeded: offset) }

    /// The offset of the character that arrived `arrival`th, if it is one
    /// of this span's.
    @inline(__always)
    func offset(of arrival: Int32) -> Int? {
        // A character before the span wraps to a large unsigned offset.
        let offset = UInt32(bitPattern: arrival &- storedFirst)
        return offset < storedLength.magnitude ? Int(offset) : nil
    }

    @inline(__always)
    func originLeft(at offset: Int) -> Int32 {
        offset == 0 ? originLeft : arrival(at: offset - 1)
    }

    /// Cuts the span before `offset` (0 < offset < length): this keeps the
    /// left part and the right part is returned.
    mutating func split(at offset: Int) -> TextSpan {
        let right = TextSpan(
            first: first + offset, length: length - offset, originLeft: arrival(at: offset - 1),
            originRight: originRight, isDeleted: isDeleted)
        length = offset
        return right
    }

    /// Whether `next`, placed right after this span, continues it: the next
    /// arrivals, typed after its last character toward the same right
    /// origin, deleted alike. The caller knows whether their ids go on too.
    func isContinued(by next: TextSpan) -> Bool {
        next.storedFirst == storedFirst + Int32(length) && next.originLeft == last
            && next.originRight == originRight && next.isDeleted == isDeleted
    }
}
