import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("The document's background")
struct BackgroundTests {
    let photo = BlobHash(words: (0xAB, 1, 2, 3))
    let paper = Color(red: 250, green: 244, blue: 230)

    func applied(_ ops: [Op]) -> Document {
        var document = Document()
        for op in ops { document.apply(op) }
        return document
    }

    @Test func aNewDocumentHasNoBackgroundAndItsStateHashIsWhatItWasBeforeBackgroundsExisted() {
        #expect(Document().background == Background())
        // A document nobody gave a background holds no record for it: its
        // canonical encoding, and so every earlier state hash, is unchanged.
        #expect(Document().canonicalEncoding == [0x45, 0x41, 0x53, 0x4C, 1, 0])
    }

    @Test func settingTheColourAndTheImageGivesBothAndTheDocumentIsNeverAnEntity() throws {
        var editor = Canvas.editor()
        try editor.perform(.setBackground(.color(paper)))
        try editor.perform(.setBackground(.image(photo, width: 800, height: 600, fit: .cover)))
        #expect(
            editor.document.background
                == Background(color: paper, image: BackgroundImage(blob: photo, width: 800, height: 600, fit: .cover)))
        #expect(!editor.document.knownEntities.contains(.document))
        #expect(editor.document.entities.count == Canvas.all.count)
        #expect(editor.document[.document] == nil)
        try editor.perform(.setBackground(.noImage))
        #expect(editor.document.background == Background(color: paper))
    }

    @Test func aColourAndAnImageSetConcurrentlyOnTwoReplicasBothSurviveInEveryOrder() throws {
        var ada = Editor(replica: ReplicaID(rawValue: 0xA))
        var bob = Editor(replica: ReplicaID(rawValue: 0xB))
        let colour = try ada.perform(.setBackground(.color(paper)))
        let image = try bob.perform(.setBackground(.image(photo, width: 300, height: 200, fit: .contain)))
        let expected = Background(color: paper, image: BackgroundImage(blob: photo, width: 300, height: 200, fit: .contain))
        #expect(applied(colour + image).background == expected)
        #expect(applied(image.reversed() + colour).background == expected)
    }

    @Test func twoColoursSetConcurrentlySettleOnTheLaterWriteOnEveryReplica() throws {
        var ada = Editor(replica: ReplicaID(rawValue: 0xA))
        var bob = Editor(replica: ReplicaID(rawValue: 0xB))
        let red = try ada.perform(.setBackground(.color(Color(red: 255, green: 0, blue: 0))))
        let blue = try bob.perform(.setBackground(.color(Color(red: 0, green: 0, blue: 255))))
        // The same counter: the higher replica wins the tie, as for every field.
        let winner = applied(red + blue).background
        #expect(winner.color == Color(red: 0, green: 0, blue: 255))
        #expect(applied(blue + red).background == winner)
        #expect(applied(blue + red).canonicalEncoding == applied(red + blue).canonicalEncoding)
    }

    @Test func undoPutsTheBackgroundBackAndNeverClobbersALaterColourFromSomeoneElse() throws {
        var editor = Canvas.editor()
        try editor.perform(.setBackground(.color(paper)))
        try editor.perform(.setBackground(.image(photo, width: 800, height: 600, fit: .stretch)))
        try editor.perform(.undo)
        #expect(editor.document.background == Background(color: paper))
        try editor.perform(.redo)
        #expect(editor.document.background.image?.fit == .stretch)
        try editor.perform(.undo)
        let later = Color(red: 1, green: 2, blue: 3)
        editor.receive([op(90, bob, .set(.document, .fill(later)))])
        try editor.perform(.undo)
        #expect(editor.document.background.color == later, "bob's later colour stays")
    }

    @Test func aSnapshotCarriesTheBackground() throws {
        var editor = Canvas.editor()
        try editor.perform(.setBackground(.color(paper)))
        try editor.perform(.setBackground(.image(photo, width: 640, height: 480, fit: .contain)))
        let copy = applied(editor.document.snapshotOps)
        #expect(copy.background == editor.document.background)
        #expect(copy.canonicalEncoding == editor.document.canonicalEncoding)
    }

    @Test func theDocumentIsOnlyEverSetAndOnlyItsOwnFields() throws {
        let stamp = OpID(counter: 5, replica: alice)
        func check(_ action: Op.Action) -> ModelError? {
            do {
                try Op(id: stamp, transaction: TransactionID(stamp), action: action).validate()
                return nil
            } catch {
                return error
            }
        }
        #expect(check(.set(.document, .fit(.cover))) == nil)
        #expect(check(.set(.document, .x(1))) == .notADocumentField(.x))
        #expect(check(.delete(.document)) == .notADocumentField(nil))
        #expect(check(.restore(.document)) == .notADocumentField(nil))
        #expect(check(.append(.document, start: 0, samples: [StrokeSample(x: 0, y: 0, time: 0)])) == .notADocumentField(nil))
        #expect(check(.set(.document, .width(.nan))) == .nonFiniteNumber(.width))
        // An entity's kind has no fit: the document's own field.
        let document = Canvas.editor().document
        #expect(throws: ModelError.fieldNotInKind(.fit, .image)) {
            try document.validate(Op(id: stamp, transaction: TransactionID(stamp), action: .set(Canvas.photo, .fit(.cover))))
        }
        try document.validate(Op(id: stamp, transaction: TransactionID(stamp), action: .set(.document, .blob(photo))))
    }

    @Test func theEditorRefusesABackgroundImageWithoutABlobOrWithABoxThatIsNotPositive() {
        var editor = Canvas.editor()
        for change in [
            BackgroundChange.image(.none, width: 10, height: 10, fit: .cover),
            .image(photo, width: 0, height: 10, fit: .cover), .image(photo, width: 10, height: .infinity, fit: .cover),
        ] {
            #expect(throws: ModelError.self) { try editor.perform(.setBackground(change)) }
        }
        #expect(editor.document.background == Background())
    }
}
