import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Editor: commands")
struct CommandTests {
    let star = Canvas.star
    let square = Canvas.square
    let note = Canvas.note
    let scribble = Canvas.scribble
    let photo = Canvas.photo

    func selecting(_ ids: EntityID..., in editor: Editor = Canvas.editor()) throws -> EditorTestStore {
        var editor = editor
        for id in ids {
            let centre = try #require(Canvas.centres[id])
            try editor.send(.tap(at: centre))
        }
        #expect(editor.state.selection == Set(ids))
        return EditorTestStore(editor)
    }

    @Test("delete selection deletes the selected entities and empties the selection")
    func deleteSelectionDeletesAndClears() throws {
        var store = try selecting(star, note)
        try store.perform(
            .deleteSelection, ops: [Canvas.aliceOp(7, .delete(star)), Canvas.aliceOp(8, in: 7, .delete(note))]
        ) {
            $0.selection = []
        }
        #expect(store.editor.document.zOrder == [square, scribble, photo])
    }

    @Test("duplicate makes new entities, offset, just above each original, and selects them")
    func duplicatePlacesCopiesJustAboveOriginals() throws {
        var store = try selecting(star, scribble)
        var editor = store.editor
        let ops = try editor.perform(.duplicateSelection)
        let starCopy = EntityID(opID(7, alice))
        let scribbleCopy = EntityID(opID(8, alice))
        #expect(ops.map(\.entity) == [starCopy, scribbleCopy, scribbleCopy])
        #expect(Set(ops.map(\.transaction)) == [TransactionID(opID(7, alice))])
        #expect(editor.state.selection == [starCopy, scribbleCopy])
        #expect(editor.document.zOrder == [star, starCopy, square, note, scribble, scribbleCopy, photo])
        let copy = try #require(editor.document[starCopy])
        #expect(copy.transform == Transform(x: 116, y: 116))
        #expect(copy.content == editor.document[star]?.content)
        #expect(editor.document[scribbleCopy]?.content == editor.document[scribble]?.content)
        store = EditorTestStore(editor)
        try store.perform(
            .undo, ops: [Canvas.aliceOp(10, .delete(scribbleCopy)), Canvas.aliceOp(11, in: 10, .delete(starCopy))]
        ) {
            $0.selection = []
        }
    }

    @Test("z-order buttons are useless with no selection")
    func zOrderButtonsNeedASelection() {
        let editor = Canvas.editor()
        #expect(!editor.canBringForward && !editor.canSendBackward)
    }

    @Test("clear all deletes every visible entity in one transaction")
    func clearAllDeletesEverything() throws {
        var store = try selecting(star)
        try store.perform(
            .clearAll,
            ops: Canvas.all.enumerated().map { index, id in Canvas.aliceOp(7 + UInt64(index), in: 7, .delete(id)) }
        ) { $0.selection = [] }
        #expect(store.editor.document.entities.isEmpty)
        try store.perform(
            .undo,
            ops: Canvas.all.reversed().enumerated().map { index, id in
                Canvas.aliceOp(12 + UInt64(index), in: 12, .restore(id))
            })
        #expect(store.editor.document.zOrder == Canvas.all)
    }

    @Test("place puts a new entity of any kind on top at the screen point")
    func placePutsNewEntitiesOnTop() throws {
        var editor = Canvas.editor()
        try editor.send(.pinchBegan(around: .zero))
        try editor.send(.pinchEnded(scale: 2))
        let blob = BlobHash(words: (7, 7, 7, 7))
        let items: [NewEntity] = [
            .emoji("🦊", size: 64), .shape(.star, width: 50, height: 50), .text("Hello", font: "Georgia", size: 30),
            .image(blob, width: 320, height: 200),
        ]
        for item in items {
            let ops = try editor.perform(.place(item, at: Point(x: 400, y: 200)))
            let placed = try #require(editor.document[ops[0].entity])
            #expect(placed.transform == Transform(x: 200, y: 100))
            #expect(editor.document.zOrder.last == placed.id)
        }
        #expect(
            editor.document.entities.suffix(4).map(\.content) == [
                .emoji(character: "🦊", size: 64), .shape(.star, width: 50, height: 50),
                .text(TextContent(string: "Hello", font: "Georgia", size: 30, style: .regular, alignment: .left)),
                .image(blob: blob, width: 320, height: 200),
            ])
        #expect(editor.state.selection.isEmpty)
    }

    @Test("set style writes the field on every selected entity that has it, and no other")
    func setStyleSkipsEntitiesWithoutTheField() throws {
        var store = try selecting(star, note)
        try store.perform(.setStyle(.font("Georgia")), ops: [Canvas.aliceOp(7, .set(note, .font("Georgia")))])
        try store.perform(
            .setStyle(.color(.white)),
            ops: [Canvas.aliceOp(8, .set(star, .color(.white))), Canvas.aliceOp(9, in: 8, .set(note, .color(.white)))])
        try store.perform(.setStyle(.textStyle(.framed)), ops: [Canvas.aliceOp(10, .set(note, .textStyle(.framed)))])
        try store.perform(.setStyle(.alignment(.center)), ops: [Canvas.aliceOp(11, .set(note, .alignment(.center)))])
        try store.perform(
            .setStyle(.size(32)),
            ops: [Canvas.aliceOp(12, .set(star, .size(32))), Canvas.aliceOp(13, in: 12, .set(note, .size(32)))])
        try store.perform(
            .setStyle(.weight(5)),
            ops: [Canvas.aliceOp(14, .set(star, .weight(5))), Canvas.aliceOp(15, in: 14, .set(note, .weight(5)))])
        try store.perform(
            .setStyle(.fill(.black)),
            ops: [Canvas.aliceOp(16, .set(star, .fill(.black))), Canvas.aliceOp(17, in: 16, .set(note, .fill(.black)))])
    }

    @Test("edit text replaces a text entity's string with character ops, and refuses other kinds")
    func editTextReplacesTheString() throws {
        var editor = Canvas.editor()
        let ops = try editor.perform(.editText(note, "hello, world"))
        #expect(editor.document.textString(of: note) == "hello, world")
        #expect(!ops.isEmpty && ops.allSatisfy { $0.textOp != nil })
        let store = EditorTestStore(editor)
        #expect(throws: ModelError.fieldNotInKind(.text, .emoji)) { try editor.perform(.editText(star, "no")) }
        #expect(throws: ModelError.unknownEntity(EntityID(opID(99, bob)))) {
            try editor.perform(.editText(EntityID(opID(99, bob)), "no"))
        }
        #expect(throws: ModelError.self) {
            try editor.perform(.editText(note, String(repeating: "x", count: ModelLimits.charactersPerText + 1)))
        }
        #expect(editor.document[note]?.content == store.editor.document[note]?.content)
    }

    @Test("drawing settings refuse a weight that is not finite and positive")
    func drawingSettingsRefuseBadWeights() {
        var editor = Canvas.editor()
        #expect(throws: ModelError.self) { try editor.perform(.setDrawing(DrawingSettings(weight: 0))) }
        #expect(throws: ModelError.self) { try editor.perform(.setDrawing(DrawingSettings(weight: .nan))) }
        #expect(editor.state.drawing == DrawingSettings())
    }

    @Test("placed text takes the drawing colour; other kinds keep their own")
    func placedTextTakesTheDrawingColour() throws {
        var editor = Canvas.editor()
        let red = Color(rawValue: 0xD0_20_20_FF)
        try editor.perform(.setDrawing(DrawingSettings(color: red)))
        let text = try editor.perform(.place(.text("Hi", font: "Helvetica", size: 24), at: Point(x: 700, y: 700)))
        #expect(editor.document[text[0].entity]?.style.color == red)
        let emoji = try editor.perform(.place(.emoji("🦊", size: 40), at: Point(x: 800, y: 700)))
        #expect(editor.document[emoji[0].entity]?.style.color == .black)

        try editor.perform(.setDrawing(DrawingSettings(color: .black)))
        let plain = try editor.perform(.place(.text("Hi", font: "Helvetica", size: 24), at: Point(x: 700, y: 800)))
        #expect(editor.document[plain[0].entity]?.style.color == .black)
        guard case .create(_, let fields) = plain[0].action else {
            Issue.record("expected a create")
            return
        }
        #expect(!fields.contains { $0.id == .color }, "black, the default, is not written")
    }
}

