/// Where a person's caret and text selection are inside one text: two
/// places kept by the characters before them (`TextAnchor`), so that what
/// others type and delete elsewhere in the text never moves them wrongly.
/// `anchor` is where the selection started, `head` where it ends (the
/// caret itself); equal when nothing is selected. Editor state, shared with
/// peers as presence, never an op.
public struct TextCaret: Hashable, Sendable {
    public var text: EntityID
    public var anchor: TextAnchor
    public var head: TextAnchor

    public init(text: EntityID, anchor: TextAnchor, head: TextAnchor) {
        self.text = text
        self.anchor = anchor
        self.head = head
    }

    /// Where the two places are in `sequence` now, as positions in the
    /// text as it reads (`anchor`, `head`).
    public func positions(in sequence: TextSequence) -> (anchor: Int, head: Int) {
        (sequence.position(of: anchor), sequence.position(of: head))
    }
}
