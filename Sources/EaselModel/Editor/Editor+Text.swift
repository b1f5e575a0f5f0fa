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
        guard state.textMergesCharacters else {
            return try transaction { _, transaction throws(ModelError) in try transaction.set(.text(string), of: id) }
        }
        let old = document.textSequenceForEditing(of: id).scalars
        let new = Array(string.unicodeScalars)
        var start = 0
        while start < old.count, start < new.count, old[start] == new[start] { start += 1 }
        var end = 0
        while end < old.count - start, end < new.count - start, old[old.count - 1 - end] == new[new.count - 1 - end] {
            end += 1
        }
        return try replaceText(id, range: start..<old.count - end, with: Array(new[start..<new.count - end]))
    }

    /// Deletes the characters at `range` and types `scalars` there, in one
    /// transaction; a long paste is several inserts.
    mutating func replaceText(_ id: EntityID, range: Range<Int>, with scalars: [Unicode.Scalar]) throws(ModelError)
        -> [Op]
    {
        try checkText(id)
        var sequence = document.textSequenceForEditing(of: id)
        guard range.lowerBound >= 0, range.upperBound <= sequence.count else {
            throw .invalidInput("characters \(range) of a text of \(sequence.count)")
        }
        guard state.textMergesCharacters else {
            var string = sequence.scalars
            string.replaceSubrange(range, with: scalars)
            var view = String.UnicodeScalarView()
            view.append(contentsOf: string)
            return try transaction { _, transaction throws(ModelError) in try transaction.set(.text(String(view)), of: id) }
        }
        guard !range.isEmpty || !scalars.isEmpty else { return [] }
        guard sequence.totalCount + scalars.count <= ModelLimits.charactersPerText else {
            throw .invalidText("a text has at most \(ModelLimits.charactersPerText) characters ever typed, deleted ones included")
        }
        return try transaction { _, transaction throws(ModelError) in
            if !range.isEmpty {
                let runs = sequence.delete(range).runs
                for start in stride(from: 0, to: runs.count, by: ModelLimits.runsPerDelete) {
                    try transaction.deleteText(Array(runs[start..<min(runs.count, start + ModelLimits.runsPerDelete)]), of: id)
                }
            }
            var origins = sequence.origins(at: range.lowerBound)
            for start in stride(from: 0, to: scalars.count, by: ModelLimits.scalarsPerInsert) {
                let piece = Array(scalars[start..<min(scalars.count, start + ModelLimits.scalarsPerInsert)])
                let op = try transaction.insertText(piece, into: id, after: origins.left, before: origins.right)
                origins.left = op.id.advanced(by: piece.count - 1)
            }
        }
    }

    private func checkText(_ id: EntityID) throws(ModelError) {
        guard let kind = document[id]?.kind else { throw .unknownEntity(id) }
        guard kind == .text else { throw .fieldNotInKind(.text, kind) }
    }
}
