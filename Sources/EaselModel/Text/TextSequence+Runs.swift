/// One run of a text as a snapshot carries it: characters one replica
/// typed left to right, their origins, and whether they are deleted.
public struct TextRun: Hashable, Sendable {
    public var insert: TextInsert
    public var isDeleted: Bool

    public init(insert: TextInsert, isDeleted: Bool) {
        self.insert = insert
        self.isDeleted = isDeleted
    }
}

extension TextSequence {
    /// Every character ever inserted, as runs in document order, each as
    /// long as it can be: what a snapshot holds of the text.
    public var runs: [TextRun] {
        var runs: [TextRun] = []
        tree.forEachSpan { span in
            let scalars = content[span.content..<span.content + span.length]
            if let last = runs.last, last.isDeleted == span.isDeleted,
                last.insert.originRight == span.originRight,
                span.first == last.insert.id.advanced(by: last.insert.scalars.count),
                span.originLeft == last.insert.id.advanced(by: last.insert.scalars.count - 1)
            {
                runs[runs.count - 1].insert.scalars.append(contentsOf: scalars)
            } else {
                runs.append(
                    TextRun(
                        insert: TextInsert(
                            id: span.first, originLeft: span.originLeft, originRight: span.originRight,
                            scalars: Array(scalars)),
                        isDeleted: span.isDeleted))
            }
        }
        return runs
    }

    /// The text a snapshot's runs make, taken in the order given, which is
    /// the order of the text they were read from: no run is scanned for its
    /// place, so loading costs about as much as reading. Runs that are
    /// empty or name a character twice are refused.
    public init(runs: [TextRun]) throws(ModelError) {
        self.init()
        for run in runs {
            let insert = run.insert
            guard !insert.scalars.isEmpty else { throw .invalidText("a run with no characters") }
            guard insert.id.counter <= UInt64.max - UInt64(insert.scalars.count) else {
                throw .invalidText("a run's counters reach past the largest")
            }
            guard !tree.index.containsAny(insert.id, count: insert.scalars.count) else {
                throw .invalidText("character \(insert.id) is in the snapshot twice")
            }
            land(insert, at: tree.end, isDeleted: run.isDeleted)
        }
    }

    /// Applies ops received together: consecutive inserts that continue one
    /// another (one replica typing on, a key at a time, from where it left
    /// off) land as one run, and consecutive deletes as one op. The result
    /// is the one applying them one by one gives: two such inserts applied
    /// one right after the other put the second right after the first's
    /// last character, as the run does, and the order ops arrive in never
    /// changes where anything ends up.
    public mutating func apply(contentsOf ops: [TextOp]) {
        applyJoining(ops)
    }

    /// `apply(contentsOf:)` for any sequence of ops: internal, so each use
    /// in this module is specialized (a public generic called from another
    /// module would run unspecialized, slower by half).
    mutating func applyJoining(_ ops: some Sequence<TextOp>) {
        var insert: TextInsert?
        var delete: TextDelete?
        for op in ops {
            switch op {
            case .insert(let next):
                if let delete { apply(.delete(delete)) }
                delete = nil
                if insert?.isContinued(by: next) == true {
                    insert?.scalars.append(contentsOf: next.scalars)
                } else {
                    if let insert { apply(.insert(insert)) }
                    insert = next
                }
            case .delete(let next):
                if let insert { apply(.insert(insert)) }
                insert = nil
                if delete == nil { delete = next } else { delete?.join(next) }
            }
        }
        if let insert { apply(.insert(insert)) }
        if let delete { apply(.delete(delete)) }
    }
}

extension TextInsert {
    /// Whether `next` is typed on from this run's last character, toward
    /// the same right origin, numbered on from it.
    public func isContinued(by next: TextInsert) -> Bool {
        !scalars.isEmpty && next.id == id.advanced(by: scalars.count)
            && next.originLeft == id.advanced(by: scalars.count - 1) && next.originRight == originRight
    }
}

extension TextDelete {
    /// Adds `next`'s characters, joining a run to the last one when they
    /// touch: deleting on forward, or backspacing, one key at a time.
    mutating func join(_ next: TextDelete) {
        for run in next.runs {
            if let last = runs.last, run.first.replica == last.first.replica,
                run.first.advanced(by: run.count) == last.first
            {
                runs[runs.count - 1] = CharacterRun(first: run.first, count: last.count + run.count)
            } else {
                append(run)
            }
        }
    }

    /// Adds a run, joined to the last one when it goes on from it.
    mutating func append(_ run: CharacterRun) {
        if let last = runs.last, last.first.replica == run.first.replica, last.first.advanced(by: last.count) == run.first {
            runs[runs.count - 1].count += run.count
        } else {
            runs.append(run)
        }
    }
}

/// A place in a text kept by the character before it, so that edits
/// elsewhere never move it wrongly: text typed before it by anyone pushes
/// it on, text deleted before it pulls it back, and the place stays after
/// its character even when someone deletes that character (it then sits
/// where the character was). Nil `after`: the text's start.
public struct TextAnchor: Hashable, Sendable {
    public var after: OpID?

    public init(after: OpID?) {
        self.after = after
    }

    public static let start = TextAnchor(after: nil)
}

extension TextSequence {
    /// The anchor of the place before the character at `position`
    /// (0 ... count): the visible character before it.
    public func anchor(at position: Int) -> TextAnchor {
        TextAnchor(after: origins(at: position).left)
    }

    /// Where an anchor's place is now, as a position in the text as it
    /// reads; an anchor naming a character not here is the start.
    public func position(of anchor: TextAnchor) -> Int {
        guard let id = anchor.after, let cursor = tree.cursor(of: id) else { return 0 }
        let before = tree.position(of: cursor, all: false)
        return tree[cursor].isDeleted ? before : before + 1
    }

    /// The scalars of a run's characters, deleted or not (those not here
    /// are left out).
    public func scalars(of run: CharacterRun) -> [Unicode.Scalar] {
        var scalars: [Unicode.Scalar] = []
        var done = 0
        while done < run.count {
            guard let cursor = tree.cursor(of: run.first.advanced(by: done)) else { break }
            let span = tree[cursor]
            let taken = min(run.count - done, span.length - cursor.offset)
            scalars.append(contentsOf: content[span.content + cursor.offset..<span.content + cursor.offset + taken])
            done += taken
        }
        return scalars
    }

    /// The runs of `run`'s characters that are here and not deleted.
    public func visibleRuns(of run: CharacterRun) -> [CharacterRun] {
        var runs: [CharacterRun] = []
        var done = 0
        while done < run.count {
            guard let cursor = tree.cursor(of: run.first.advanced(by: done)) else {
                done += 1
                continue
            }
            let span = tree[cursor]
            let taken = min(run.count - done, span.length - cursor.offset)
            if !span.isDeleted { runs.append(CharacterRun(first: run.first.advanced(by: done), count: taken)) }
            done += taken
        }
        return runs
    }
}

extension TextSequence {
    /// The character after `id` in the text, deleted ones included; nil
    /// at the end or when `id` is not here.
    public func id(after id: OpID) -> OpID? {
        tree.cursor(of: id).flatMap { tree.id(at: tree.after($0)) }
    }
}

/// Where one character stands in a text: its index among all characters,
/// deleted ones included (the order the CRDT gave it), its scalar, and
/// whether it is deleted.
public struct CharacterPlace: Hashable, Sendable {
    public var index: Int
    public var scalar: Unicode.Scalar
    public var isDeleted: Bool
}

extension TextSequence {
    /// Where the character `id` stands; nil when it is not here.
    public func place(of id: OpID) -> CharacterPlace? {
        guard let cursor = tree.cursor(of: id) else { return nil }
        let span = tree[cursor]
        return CharacterPlace(
            index: tree.position(of: cursor, all: true), scalar: content[span.content + cursor.offset],
            isDeleted: span.isDeleted)
    }
}
