/// A text's characters as a snapshot carries them (`Op.Action.textSnapshot`):
/// every run in document order, deleted ones included, and the scalars of
/// the characters not deleted, which are the text as it reads.
///
/// A deleted character keeps its id and origins, since inserts anywhere may
/// name it, but not its scalar: no one reads it again, so it is not part of
/// the text's state (as in Yjs' and Loro's snapshots), and a replica that
/// loads one holds U+0000 in its place. A text past
/// `ModelLimits.runsPerTextSnapshot` runs or `scalarsPerTextSnapshot`
/// scalars goes in several pieces, in document order; pieces received
/// together load as one.
public struct TextSnapshot: Hashable, Sendable {
    /// Characters one replica typed left to right (`TextSpan`'s rule): the
    /// first one's left origin is `originLeft`, each next one's the
    /// character before it, and all share `originRight`.
    public struct Run: Hashable, Sendable {
        public var first: OpID
        public var count: Int
        public var originLeft: OpID?
        public var originRight: OpID?
        public var isDeleted: Bool

        public init(first: OpID, count: Int, originLeft: OpID?, originRight: OpID?, isDeleted: Bool) {
            self.first = first
            self.count = count
            self.originLeft = originLeft
            self.originRight = originRight
            self.isDeleted = isDeleted
        }

        /// The id after the run's last character.
        public var end: OpID { first.advanced(by: count) }
    }

    public var runs: [Run]
    /// The scalars of the runs not deleted, one run after another.
    public var scalars: [Unicode.Scalar]

    public init(runs: [Run], scalars: [Unicode.Scalar]) {
        self.runs = runs
        self.scalars = scalars
    }

    /// Pieces of one text's snapshot, as one.
    public init(joining pieces: [TextSnapshot]) {
        self.init(runs: [], scalars: [])
        for piece in pieces { append(piece) }
    }

    /// Characters the runs hold, deleted ones included.
    public var characterCount: Int {
        runs.reduce(0) { $0 + $1.count }
    }

    /// Characters the runs not deleted hold: as many as `scalars` has, in a
    /// valid snapshot.
    public var visibleCount: Int {
        runs.reduce(0) { $0 + ($1.isDeleted ? 0 : $1.count) }
    }

    /// The highest counter the runs take.
    public var highestCounter: UInt64 {
        runs.reduce(0) { max($0, $1.first.counter &+ UInt64(max($1.count, 1) - 1)) }
    }

    /// The runs as the ops that would type them, deleted ones typed as
    /// U+0000, and one delete of those: what merging the snapshot into a
    /// text that has characters already amounts to.
    var ops: (inserts: [TextInsert], deleted: TextDelete) {
        var inserts: [TextInsert] = []
        inserts.reserveCapacity(runs.count)
        var deleted = TextDelete(runs: [])
        var visible = 0
        for run in runs {
            let scalars: [Unicode.Scalar]
            if run.isDeleted {
                scalars = Array(repeating: Unicode.Scalar(0), count: run.count)
                deleted.append(CharacterRun(first: run.first, count: run.count))
            } else {
                // Scalars a snapshot lacks (only an invalid one) read as
                // U+0000, as deleted ones do.
                let given = self.scalars[min(visible, self.scalars.count)..<min(visible + run.count, self.scalars.count)]
                scalars = Array(given) + Array(repeating: Unicode.Scalar(0), count: run.count - given.count)
                visible += run.count
            }
            inserts.append(TextInsert(id: run.first, originLeft: run.originLeft, originRight: run.originRight, scalars: scalars))
        }
        return (inserts, deleted)
    }

    /// Pieces received one after another, as one.
    public mutating func append(_ next: TextSnapshot) {
        runs.append(contentsOf: next.runs)
        scalars.append(contentsOf: next.scalars)
    }
}

extension TextSequence {
    /// Every character ever inserted, as a snapshot carries them: runs as
    /// long as they can be, in pieces within the limits.
    public var snapshot: [TextSnapshot] {
        var pieces: [TextSnapshot] = []
        var piece = TextSnapshot(runs: [], scalars: [])
        func close() {
            if !piece.runs.isEmpty { pieces.append(piece) }
            piece = TextSnapshot(runs: [], scalars: [])
        }
        forEachSpanOfRuns { span, first, originLeft, originRight, goesOn in
            var offset = 0
            while offset < span.length {
                // A visible span longer than a piece has room for goes on in
                // the next, as the run it would be if typed in two goes.
                var taken = span.length - offset
                if !span.isDeleted {
                    let room = ModelLimits.scalarsPerTextSnapshot - piece.scalars.count
                    if room == 0 {
                        close()
                        continue
                    }
                    taken = min(taken, room)
                }
                // What a piece did not have room for starts the next one:
                // its first character's left origin is the one before it.
                let joins = goesOn && offset == 0 && !piece.runs.isEmpty
                let partFirst = first.advanced(by: offset)
                let partLeft = offset == 0 ? originLeft : OpID(counter: partFirst.counter - 1, replica: partFirst.replica)
                if !joins, piece.runs.count == ModelLimits.runsPerTextSnapshot { close() }
                if !span.isDeleted { content.copy(span.first + offset..<span.first + offset + taken, to: &piece.scalars) }
                if joins {
                    piece.runs[piece.runs.count - 1].count += taken
                } else {
                    piece.runs.append(
                        TextSnapshot.Run(
                            first: partFirst, count: taken, originLeft: partLeft, originRight: originRight,
                            isDeleted: span.isDeleted))
                }
                offset += taken
            }
        }
        close()
        return pieces
    }

    /// The text a snapshot's runs make, taken in the order given, which is
    /// the order of the text they were read from: no run is scanned for its
    /// place, so loading costs about as much as reading. Runs that name a
    /// character twice, or an origin the snapshot lacks, and scalars that
    /// do not match the runs not deleted, are refused.
    public init(snapshot: TextSnapshot) throws(ModelError) {
        self.init()
        let runs = snapshot.runs
        guard snapshot.scalars.count == snapshot.visibleCount else {
            throw .invalidText("\(snapshot.scalars.count) scalars for \(snapshot.visibleCount) characters not deleted")
        }
        reserveCapacity(snapshot.characterCount, runs: runs.count)
        for run in runs {
            guard run.count > 0 else { throw .invalidText("a run with no characters") }
            guard run.first.counter <= UInt64.max - UInt64(run.count) else {
                throw .invalidText("a run's counters reach past the largest")
            }
        }
        // A run's right origin comes later in the text: every character is
        // numbered before any origin is looked up.
        guard let idsGoOn = arriveAll(snapshot) else {
            throw .invalidText("a character is in the snapshot twice")
        }
        var first = 0
        for (at, run) in runs.enumerated() {
            // Origins are most often the runs on either side, which cost no
            // lookup.
            let before = at > 0 ? runs[at - 1].first.advanced(by: runs[at - 1].count - 1) : nil
            let after = at + 1 < runs.count ? runs[at + 1].first : nil
            let originLeft =
                run.originLeft != nil && run.originLeft == before ? Int32(first - 1) : try arrival(of: run.originLeft)
            let originRight =
                run.originRight != nil && run.originRight == after ? Int32(first + run.count) : try arrival(of: run.originRight)
            let span = TextSpan(
                first: first, length: run.count, originLeft: originLeft, originRight: originRight, isDeleted: run.isDeleted)
            append(span, idsGoOn: idsGoOn[at])
            first += run.count
        }
    }

    private func arrival(of origin: OpID?) throws(ModelError) -> Int32 {
        guard let origin else { return TextSpan.none }
        guard let arrival = arrivals.arrival(of: origin) else {
            throw .invalidText("a run's origin \(origin) is not in the snapshot")
        }
        return Int32(arrival)
    }
}
