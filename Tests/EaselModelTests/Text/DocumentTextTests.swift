@testable import EaselModel
import EaselTestSupport
import Testing

/// Texts in a document: character ops as ops of the document, texts from
/// before characters merged, snapshots, the clock, and what a server
/// refuses.
@Suite struct DocumentTextTests {
    /// A text created today's way, its string written whole: the create is
    /// alice's op 1, so its characters will be 1, 2, … of alice.
    static func legacyText(_ string: String) -> (Document, EntityID) {
        let create = Op(
            id: opID(1, alice), transaction: TransactionID(opID(1, alice)),
            action: .create(.text, [.text(string), .font("Georgia"), .size(24)]))
        return (Document(applying: [create]), EntityID(opID(1, alice)))
    }

    static func insert(_ text: String, into entity: EntityID, id: OpID, after left: OpID?, before right: OpID?) -> Op {
        Op(
            id: id, transaction: TransactionID(id),
            action: .insertText(entity, TextInsertion(originLeft: left, originRight: right, scalars: Array(text.unicodeScalars))))
    }

    @Test func aTextFromTodaysFormatReadsAsItsStringUntilItsFirstCharacterEdit() throws {
        let (document, note) = Self.legacyText("Meeting notes")
        guard case .text(let content)? = document[note]?.content else { throw Failure("not a text") }
        #expect(content.string == "Meeting notes")
        #expect(document.textSequence(of: note) == nil)
        #expect(document.highestCounter == 13, "a string of 13 characters takes 13 counters")
        // An edit that only waits (its origin has not arrived) changes
        // nothing: the text still reads, and encodes, as its string.
        var waiting = document
        let early = Self.insert("!", into: note, id: opID(30, bob), after: opID(29, carol), before: nil)
        #expect(waiting.apply(early) == .waitingForGap)
        #expect(waiting.textString(of: note) == "Meeting notes")
        #expect(waiting.canonicalEncoding == document.canonicalEncoding)
    }

    @Test func theFirstCharacterEditUpgradesATextAndKeepsItsString() throws {
        var (document, note) = Self.legacyText("Meeting notes")
        // The last base character, "s", is alice's counter 13.
        document.apply(Self.insert(" from Ann", into: note, id: opID(20, bob), after: opID(13, alice), before: nil))
        #expect(document.textString(of: note) == "Meeting notes from Ann")
        guard case .text(let content)? = document[note]?.content else { throw Failure("not a text") }
        #expect(content.string == "Meeting notes from Ann" && content.font == "Georgia")
        #expect(document.highestCounter == 28)
    }

    @Test func twoPeopleUpgradingOneTextAtOnceBothKeepEveryCharacter() {
        let (base, note) = Self.legacyText("Meeting notes")
        let fromAnn = Self.insert(" from Ann", into: note, id: opID(20, alice), after: opID(13, alice), before: nil)
        let byBob = Self.insert(" by Bob!!", into: note, id: opID(20, bob), after: opID(13, alice), before: nil)
        var ann = base
        ann.apply(fromAnn)
        ann.apply(byBob)
        var bob = base
        bob.apply(byBob)
        bob.apply(fromAnn)
        #expect(ann.textString(of: note) == "Meeting notes from Ann by Bob!!")
        #expect(ann.canonicalEncoding == bob.canonicalEncoding)
    }

    @Test func aWriteOfTheWholeStringThatWinsAfterwardsStartsTheCharactersAgainAlikeInAnyOrder() {
        let (base, note) = Self.legacyText("abc")
        // Bob writes the string whole, before he saw any character op;
        // carol types after "c" and at the very start, then once more after
        // her own typing.
        let write = Op(id: opID(30, bob), transaction: TransactionID(opID(30, bob)), action: .set(note, .text("xyz")))
        let ops = [
            Self.insert("!", into: note, id: opID(20, carol), after: opID(3, alice), before: nil),
            Self.insert(">", into: note, id: opID(21, carol), after: nil, before: opID(1, alice)),
            Self.insert("?", into: note, id: opID(22, carol), after: opID(20, carol), before: nil),
            write,
        ]
        var results: Set<[UInt8]> = []
        for order in [[0, 1, 2, 3], [3, 0, 1, 2], [1, 3, 2, 0], [2, 0, 3, 1]] {
            var document = base
            for index in order { document.apply(ops[index]) }
            results.insert(document.canonicalEncoding)
            // What was typed into "abc" waits for characters that are gone.
            #expect(document.textString(of: note) == "xyz", "order \(order)")
        }
        #expect(results.count == 1)
    }

    @Test func typingTakesACounterACharacterSoTheNextOpComesAfterTheLast() throws {
        var clock = LamportClock(replica: alice)
        var transaction = try clock.beginTransaction()
        let note = try transaction.create(.text, [.text("ab")])
        let insert = try transaction.insertText(Array("hello".unicodeScalars), into: note, after: opID(2, alice), before: nil)
        try transaction.set(.x(5), of: note)
        let ops = clock.commit(transaction)
        #expect(ops.map(\.id.counter) == [1, 3, 8])
        #expect(insert.lastCounter == 7)
        #expect(try clock.tick().counter == 9)
        #expect(Document(applying: ops).textString(of: note) == "abhello")
    }

    @Test func aServerRefusesWhatTheTextCannotMean() throws {
        var (document, note) = Self.legacyText("abc")
        let unknown = Self.insert("x", into: note, id: opID(20, bob), after: opID(9, carol), before: nil)
        #expect(throws: ModelError.self) { try document.validate(unknown) }
        let fine = Self.insert("x", into: note, id: opID(20, bob), after: opID(3, alice), before: nil)
        try document.validate(fine)
        document.apply(fine)
        // Once characters merge, the string is not written whole.
        let write = Op(id: opID(30, bob), transaction: TransactionID(opID(30, bob)), action: .set(note, .text("xyz")))
        #expect(throws: ModelError.self) { try document.validate(write) }
        let deleteMissing = Op(
            id: opID(31, bob), transaction: TransactionID(opID(31, bob)),
            action: .deleteText(note, [CharacterRun(first: opID(2, alice), count: 5)]))
        #expect(throws: ModelError.self) { try document.validate(deleteMissing) }
        let star = Op(id: opID(40, bob), transaction: TransactionID(opID(40, bob)), action: .create(.emoji, [.character("⭐️")]))
        document.apply(star)
        let intoEmoji = Self.insert("x", into: EntityID(opID(40, bob)), id: opID(41, bob), after: nil, before: nil)
        #expect(throws: ModelError.self) { try document.validate(intoEmoji) }
        let empty = Self.insert("", into: note, id: opID(42, bob), after: nil, before: nil)
        #expect(throws: ModelError.self) { try empty.validate() }
    }

    /// Replicas create texts, type and delete in them and move them, in
    /// transactions made through the clock as an editor makes them; ops
    /// reach each replica in a random order, some twice.
    @Test func replicasTypingIntoSharedTextsConvergeAndTheirSnapshotsGiveTheStateExactly() throws {
        for seed in propertySeeds(count: 300, label: "document texts") {
            var random = SeededRandom(seed: seed)
            let replicas = [alice, bob, carol]
            var clocks = replicas.map { LamportClock(replica: $0) }
            var documents = Array(repeating: Document(), count: 3)
            var made: [Op] = []
            for _ in 0..<30 {
                let index = Int.random(in: 0..<3, using: &random)
                var document = documents[index]
                clocks[index].observe(document.highestCounter)
                var transaction = try clocks[index].beginTransaction()
                let texts = document.entities.filter { $0.kind == .text }.map(\.id)
                if texts.isEmpty || random.chance(0.15) {
                    _ = try transaction.create(.text, random.chance(0.5) ? [.text("base")] : [])
                } else if let text = texts.randomElement(using: &random) {
                    let sequence = document.textSequenceForEditing(of: text)
                    if sequence.count > 0, random.chance(0.3) {
                        var copy = sequence
                        let start = Int.random(in: 0..<sequence.count, using: &random)
                        let delete = copy.delete(start..<min(sequence.count, start + 3))
                        try transaction.deleteText(Array(delete.runs), of: text)
                    } else if random.chance(0.1) {
                        try transaction.set(.x(Float(Int.random(in: 0...100, using: &random))), of: text)
                    } else {
                        let typed = Array("xyz".unicodeScalars.prefix(Int.random(in: 1...3, using: &random)))
                        let origins = sequence.origins(at: Int.random(in: 0...sequence.count, using: &random))
                        _ = try transaction.insertText(typed, into: text, after: origins.left, before: origins.right)
                    }
                }
                let ops = clocks[index].commit(transaction)
                for op in ops { document.apply(op) }
                documents[index] = document
                made += ops
                // Some ops travel as they are made.
                for other in 0..<3 where other != index && random.chance(0.4) {
                    for op in made.shuffled(using: &random).prefix(5) { documents[other].apply(op) }
                }
            }
            for index in 0..<3 {
                var delivery = made + made.filter { _ in random.chance(0.2) }
                delivery.shuffle(using: &random)
                for op in delivery { documents[index].apply(op) }
            }
            let first = documents[0].canonicalEncoding
            #expect(documents.allSatisfy { $0.canonicalEncoding == first }, "EASEL_SEED=\(seed): replicas differ")
            // Received together, in the order made and in a shuffled one
            // with repeats, the ops give the same state.
            var together = Document()
            together.apply(contentsOf: made)
            var scattered = Document()
            scattered.apply(contentsOf: (made + made.filter { _ in random.chance(0.2) }).shuffled(using: &random))
            #expect(together.canonicalEncoding == first, "EASEL_SEED=\(seed): ops applied together differ")
            #expect(scattered.canonicalEncoding == first, "EASEL_SEED=\(seed): shuffled ops applied together differ")
            #expect(together.highestCounter == documents[0].highestCounter, "EASEL_SEED=\(seed)")
            let snapshot = documents[0].snapshotOps
            #expect(snapshot.allSatisfy { (try? $0.validate()) != nil }, "EASEL_SEED=\(seed): an invalid snapshot op")
            let loaded = Document(applying: snapshot.shuffled(using: &random))
            #expect(loaded.canonicalEncoding == first, "EASEL_SEED=\(seed): the snapshot gives another state")
            // In order and together, as a welcome gives it: texts load whole.
            var welcomed = Document()
            welcomed.apply(contentsOf: snapshot)
            #expect(welcomed.canonicalEncoding == first, "EASEL_SEED=\(seed): the snapshot loaded whole differs")
            #expect(welcomed.highestCounter == documents[0].highestCounter, "EASEL_SEED=\(seed)")
            for text in documents[0].entities.filter({ $0.kind == .text }).map(\.id) {
                #expect(loaded.textString(of: text) == documents[0].textString(of: text), "EASEL_SEED=\(seed)")
            }
        }
    }
}

extension DocumentTextTests {
    @Test func aTextPastAPiecesLimitsSnapshotsInPiecesThatLoadAsTheWholeTogetherOrOneByOne() throws {
        let note = EntityID(opID(1, alice))
        var document = Document(applying: [Op(id: opID(1, alice), transaction: TransactionID(opID(1, alice)), action: .create(.text, []))])
        var random = SeededRandom(seed: 31)
        var text = TextSequence()
        var counter: UInt64 = 2
        // A long paste (more scalars than a piece holds), then keys typed
        // and deleted here and there (more runs than a piece holds).
        var ops: [Op] = []
        let paste = (0..<(ModelLimits.scalarsPerTextSnapshot + 5_000)).map { Unicode.Scalar(UInt8(97 + $0 % 26)) }
        var at = 0
        while at < paste.count {
            let chunk = Array(paste[at..<min(paste.count, at + ModelLimits.scalarsPerInsert)])
            let insert = text.insert(chunk, at: at, id: opID(counter, alice))
            ops.append(Self.insert(String(String.UnicodeScalarView(chunk)), into: note, id: insert.id, after: insert.originLeft, before: insert.originRight))
            counter += UInt64(chunk.count)
            at += chunk.count
        }
        for _ in 0..<(ModelLimits.runsPerTextSnapshot * 3 / 2) {
            if random.chance(0.3) {
                let start = Int.random(in: 0..<text.count, using: &random)
                let delete = text.delete(start..<start + 1)
                ops.append(Op(id: opID(counter, bob), transaction: TransactionID(opID(counter, bob)), action: .deleteText(note, Array(delete.runs))))
            } else {
                let insert = text.insert(["é"], at: Int.random(in: 0...text.count, using: &random), id: opID(counter, bob))
                ops.append(Self.insert("é", into: note, id: insert.id, after: insert.originLeft, before: insert.originRight))
            }
            counter += 1
        }
        document.apply(contentsOf: ops)
        #expect(document.textString(of: note) == text.string)
        let snapshot = document.snapshotOps
        let pieces = snapshot.filter { if case .textSnapshot = $0.action { true } else { false } }
        #expect(pieces.count >= 2)
        for piece in pieces { try piece.validate() }
        var together = Document()
        together.apply(contentsOf: snapshot)
        #expect(together.canonicalEncoding == document.canonicalEncoding)
        let oneByOne = Document(applying: snapshot)
        #expect(oneByOne.canonicalEncoding == document.canonicalEncoding)
        #expect(oneByOne.textString(of: note) == text.string)
    }
}

extension DocumentTextTests {
    @Test func aSnapshotOfMoreCharactersThanATextMayHaveIsRefusedAndChangesNothing() throws {
        var (document, note) = Self.legacyText("Hi")
        let huge = TextSnapshot(
            runs: (0..<2).map { index in
                TextSnapshot.Run(
                    first: opID(100 + UInt64(index) * (1 << 20), bob), count: ModelLimits.charactersPerText, originLeft: nil,
                    originRight: nil, isDeleted: true)
            },
            scalars: [])
        let op = Op(id: opID(99, bob), transaction: TransactionID(opID(99, bob)), action: .textSnapshot(note, huge))
        #expect(throws: ModelError.self) { try op.validate() }
        let before = document.canonicalEncoding
        #expect(document.apply(op) == .refused(.invalidText("more characters than a text may have")))
        document.apply(contentsOf: [op])
        #expect(document.canonicalEncoding == before && document.textString(of: note) == "Hi")
    }

    @Test func aSnapshotMissingScalarsMergesWithoutTrappingAndReadsThemAsUnknown() {
        var (document, note) = Self.legacyText("Hi")
        document.apply(Self.insert("!", into: note, id: opID(10, alice), after: opID(2, alice), before: nil))
        // Two visible runs and one scalar: invalid, and never validated here.
        let short = TextSnapshot(
            runs: [
                .init(first: opID(20, bob), count: 2, originLeft: opID(10, alice), originRight: nil, isDeleted: false),
                .init(first: opID(30, bob), count: 1, originLeft: opID(21, bob), originRight: nil, isDeleted: false),
            ],
            scalars: ["x"])
        document.apply(Op(id: opID(31, bob), transaction: TransactionID(opID(31, bob)), action: .textSnapshot(note, short)))
        #expect(document.textString(of: note) == "Hi!x\u{0}\u{0}")
    }
}

private struct Failure: Error {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite struct OpLayoutTests {
    /// Ops are copied by the million when documents merge: a character op
    /// keeps its origins and characters out of line, so adding it left
    /// every op no larger (a set of x is what merging moves most).
    @Test func characterOpsLeaveEveryOpAsSmallAsBefore() {
        // 88 bytes before texts merged: IDs 32, a set of one field 49.
        #expect(MemoryLayout<Op>.stride <= 88)
        #expect(MemoryLayout<Op.Action>.size <= 49)
    }
}
