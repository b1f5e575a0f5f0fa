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
        forEachSpanOfRuns { span, first, originLeft, originRight, goesOn in
            var scalars: [Unicode.Scalar] = []
            content.copy(span.first..<span.first + span.length, to: &scalars)
            if goesOn {
                runs[runs.count - 1].insert.scalars.append(contentsOf: scalars)
            } else {
                runs.append(
                    TextRun(
                        insert: TextInsert(id: first, originLeft: originLeft, originRight: originRight, scalars: scalars),
                        isDeleted: span.isDeleted))
            }
        }
        return runs
    }

    /// Every span in document order, with its first character's id and its
    /// origins, and whether it goes on the run of the span before: the next
    /// ids, typed on from that one's last character toward the same right
    /// origin, deleted alike. Spans that go on make one run, as long as it
    /// can be (`runs`, `snapshot`).
    func forEachSpanOfRuns(
        _ body: (_ span: TextSpan, _ first: OpID, _ originLeft: OpID?, _ originRight: OpID?, _ goesOn: Bool) -> Void
    ) {
        var previous: (last: OpID, originRight: OpID?, isDeleted: Bool)?
        tree.forEachSpan { span in
            let first = arrivals.id(of: span.first)
            let originLeft = id(of: span.originLeft)
            let originRight = id(of: span.originRight)
            let goesOn =
                previous.map {
                    $0.isDeleted == span.isDeleted && $0.originRight == originRight && originLeft == $0.last
                        && first == $0.last.advanced(by: 1)
                } ?? false
            body(span, first, originLeft, originRight, goesOn)
            previous = (first.advanced(by: span.length - 1), originRight, span.isDeleted)
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
        var batch = Batch()
        for op in ops {
            switch op {
            case .insert(let insert): add(insert, to: &batch)
            case .delete(let delete): add(delete, to: &batch)
            }
        }
        finish(&batch)
    }

    /// Ops received together, held while the next ones may join them: an
    /// insert as the sequence's op or as a received op carries it, or a
    /// delete.
    struct Batch {
        fileprivate var insert: TextInsert?
        fileprivate var received: (id: OpID, insertion: TextInsertion)?
        fileprivate var delete: TextDelete?
    }

    mutating func add(_ next: TextInsert, to batch: inout Batch) {
        takeReceived(from: &batch)
        if let delete = batch.delete { apply(delete) }
        batch.delete = nil
        if batch.insert?.isContinued(by: next) == true {
            batch.insert?.scalars.append(contentsOf: next.scalars)
        } else {
            if let insert = batch.insert { apply(insert) }
            batch.insert = next
        }
    }

    /// A received op's insert, held as it is unless an insert it continues
    /// is held, so that it merges with no list made of its scalars.
    mutating func add(_ insertion: TextInsertion, id: OpID, to batch: inout Batch) {
        if let delete = batch.delete { apply(delete) }
        batch.delete = nil
        let next = (id: id, insertion: insertion)
        if batch.insert?.isContinued(by: next) == true {
            batch.insert?.scalars.append(contentsOf: insertion.scalars)
            return
        }
        if let received = batch.received,
            TextInsert.typesOn(
                from: received.id, count: received.insertion.scalars.count,
                originRight: received.insertion.originRight, to: next.id, originLeft: insertion.originLeft,
                originRight: insertion.originRight)
        {
            takeReceived(from: &batch)
            batch.insert?.scalars.append(contentsOf: insertion.scalars)
            return
        }
        if let insert = batch.insert { apply(insert) }
        batch.insert = nil
        if let received = batch.received { apply(received.insertion, id: received.id) }
        batch.received = next
    }

    /// Turns a held received insert into the sequence's op, which inserts
    /// joining it can lengthen.
    private func takeReceived(from batch: inout Batch) {
        guard let received = batch.received else { return }
        batch.received = nil
        batch.insert = TextInsert(received)
    }

    mutating func add(_ next: TextDelete, to batch: inout Batch) {
        if let insert = batch.insert { apply(insert) }
        batch.insert = nil
        if let received = batch.received { apply(received.insertion, id: received.id) }
        batch.received = nil
        if batch.delete == nil { batch.delete = next } else { batch.delete?.join(next) }
    }

    /// Applies what the batch still holds.
    mutating func finish(_ batch: inout Batch) {
        if let insert = batch.insert { apply(insert) }
        if let received = batch.received { apply(received.insertion, id: received.id) }
        if let delete = batch.delete { apply(delete) }
        batch = Batch()
    }
}

extension TextInsert {
    /// Whether `next` is typed on from this run's last character, toward
    /// the same right origin, numbered on from it.
    public func isContinued(by next: TextInsert) -> Bool {
        Self.typesOn(
            from: id, count: scalars.count, originRight: originRight, to: next.id, originLeft: next.originLeft,
            originRight: next.originRight)
    }

    func isContinued(by next: (id: OpID, insertion: TextInsertion)) -> Bool {
        Self.typesOn(
            from: id, count: scalars.count, originRight: originRight, to: next.id,
            originLeft: next.insertion.originLeft, originRight: next.insertion.originRight)
    }

    /// Whether an insert at `nextID` types on from a run of `count`
    /// characters from `first`: numbered on from its last character, after
    /// it, toward the same right origin.
    static func typesOn(
        from first: OpID, count: Int, originRight: OpID?, to nextID: OpID, originLeft nextLeft: OpID?,
        originRight nextRight: OpID?
    ) -> Bool {
        count > 0 && nextID == first.advanced(by: count) && nextLeft == first.advanced(by: count - 1)
            && nextRight == originRight
    }

    /// A received op's insert as the sequence's op.
    init(_ received: (id: OpID, insertion: TextInsertion)) {
        self.init(
            id: received.id, originLeft: received.insertion.originLeft, originRight: received.insertion.originRight,
            scalars: Array(received.insertion.scalars))
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
        guard let id = anchor.after, let arrival = arrivals.arrival(of: id) else { return 0 }
        let cursor = tree.cursor(of: arrival)
        let before = tree.position(of: cursor, all: false)
        return tree[cursor].isDeleted ? before : before + 1
    }

    /// The scalars of a run's characters, deleted or not (those not here
    /// are left out).
    public func scalars(of run: CharacterRun) -> [Unicode.Scalar] {
        var scalars: [Unicode.Scalar] = []
        var done = 0
        while done < run.count {
            guard let present = arrivals.run(from: run.first.advanced(by: done)) else { break }
            let taken = min(run.count - done, present.count)
            content.copy(present.arrival..<present.arrival + taken, to: &scalars)
            done += taken
        }
        return scalars
    }

    /// The runs of `run`'s characters that are here and not deleted.
    public func visibleRuns(of run: CharacterRun) -> [CharacterRun] {
        var runs: [CharacterRun] = []
        var done = 0
        while done < run.count {
            guard let present = arrivals.run(from: run.first.advanced(by: done)) else {
                done += 1
                continue
            }
            let cursor = tree.cursor(of: present.arrival)
            let span = tree[cursor]
            let taken = min(run.count - done, present.count, span.length - cursor.offset)
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
        guard let arrival = arrivals.arrival(of: id), let next = tree.arrival(at: tree.after(tree.cursor(of: arrival)))
        else { return nil }
        return arrivals.id(of: Int(next))
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
        guard let arrival = arrivals.arrival(of: id) else { return nil }
        let cursor = tree.cursor(of: arrival)
        let span = tree[cursor]
        return CharacterPlace(
            index: tree.position(of: cursor, all: true), scalar: content[arrival],
            isDeleted: span.isDeleted)
    }
}
