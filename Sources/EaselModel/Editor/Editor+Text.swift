extension Editor {
    /// Whether text edits become character ops (a server of version 4 or
    /// later) or writes of the whole string (an older one).
    public mutating func editTextAsCharacters(_ merges: Bool) {
        state.textMergesCharacters = merges
    }

    /// Makes a text read `string`, deleting and typing only the characters
    /// between the longest common start and end.
    mutating func editText(_ id: EntityID, to string: String) throws(ModelError) -> [Op] {
        try checkText(id)
        guard state.textMergesCharacters else { return try writeWhole(string, of: id) }
        let sequence = document.textSequenceForEditing(of: id)
        let old = sequence.scalars
        let new = Array(string.unicodeScalars)
        var start = 0
        while start < old.count, start < new.count, old[start] == new[start] { start += 1 }
        var end = 0
        while end < old.count - start, end < new.count - start, old[old.count - 1 - end] == new[new.count - 1 - end] {
            end += 1
        }
        return try replace(start..<old.count - end, with: Array(new[start..<new.count - end]), in: sequence, of: id)
    }

    /// Deletes the characters at `range` and types `scalars` there, in one
    /// transaction; a long paste is several inserts.
    mutating func replaceText(_ id: EntityID, range: Range<Int>, with scalars: [Unicode.Scalar]) throws(ModelError)
        -> [Op]
    {
        try checkText(id)
        let sequence = document.textSequenceForEditing(of: id)
        guard range.lowerBound >= 0, range.upperBound <= sequence.count else {
            throw .invalidInput("characters \(range) of a text of \(sequence.count)")
        }
        guard state.textMergesCharacters else {
            var string = sequence.scalars
            string.replaceSubrange(range, with: scalars)
            var view = String.UnicodeScalarView()
            view.append(contentsOf: string)
            let ops = try writeWhole(String(view), of: id)
            moveCaret(in: id, to: range.lowerBound + scalars.count)
            return ops
        }
        return try replace(range, with: scalars, in: sequence, of: id)
    }

    /// The selected entities that are texts: a text command that names no
    /// text acts on the one there is, when there is exactly one.
    public var selectedTexts: [EntityID] {
        state.selection.filter { document.kind(of: $0) == .text }
    }

    /// Puts the caret in a text, selecting from `anchor` to `head`
    /// (positions in the text as it reads, clamped to it; equal for a bare
    /// caret).
    public mutating func placeCaret(in id: EntityID, anchor: Int, head: Int) throws(ModelError) {
        try checkText(id)
        let sequence = document.textSequenceForEditing(of: id)
        func clamped(_ position: Int) -> Int { min(max(position, 0), sequence.count) }
        state.textCaret = TextCaret(
            text: id, anchor: sequence.anchor(at: clamped(anchor)), head: sequence.anchor(at: clamped(head)))
    }

    /// Takes the caret out of the text it was in.
    public mutating func removeCaret() {
        state.textCaret = nil
    }

    /// Where the caret's two places are in its text now.
    public var caretPositions: (anchor: Int, head: Int)? {
        guard let caret = state.textCaret else { return nil }
        return caret.positions(in: document.textSequenceForEditing(of: caret.text))
    }

    /// After typing into the text the caret is in, the caret follows what
    /// was typed, as in any editor.
    private mutating func moveCaret(in id: EntityID, to position: Int) {
        guard state.textCaret?.text == id else { return }
        let place = document.textSequenceForEditing(of: id).anchor(at: position)
        state.textCaret = TextCaret(text: id, anchor: place, head: place)
    }

    /// The character ops that replace `range` of a text's characters, as
    /// `sequence` holds them now.
    private mutating func replace(
        _ range: Range<Int>, with scalars: [Unicode.Scalar], in sequence: TextSequence, of id: EntityID
    ) throws(ModelError) -> [Op] {
        guard !range.isEmpty || !scalars.isEmpty else { return [] }
        guard sequence.totalCount + scalars.count <= ModelLimits.charactersPerText else {
            throw .invalidText("a text has at most \(ModelLimits.charactersPerText) characters ever typed, deleted ones included")
        }
        var sequence = sequence
        let ops = try transaction { _, transaction throws(ModelError) in
            if !range.isEmpty { try transaction.deleteText(inChunks: Array(sequence.delete(range).runs), of: id) }
            let origins = sequence.origins(at: range.lowerBound)
            try transaction.insertText(inChunks: scalars, into: id, after: origins.left, before: origins.right)
        }
        moveCaret(in: id, to: range.lowerBound + scalars.count)
        return ops
    }

    /// A write of the whole string, for a server older than version 4.
    private mutating func writeWhole(_ string: String, of id: EntityID) throws(ModelError) -> [Op] {
        try transaction { _, transaction throws(ModelError) in try transaction.set(.text(string), of: id) }
    }

    private func checkText(_ id: EntityID) throws(ModelError) {
        guard let kind = document[id]?.kind else { throw .unknownEntity(id) }
        guard kind == .text else { throw .fieldNotInKind(.text, kind) }
    }
}
