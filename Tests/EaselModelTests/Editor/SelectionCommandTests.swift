import EaselTestSupport
import Testing

@testable import EaselModel

/// The keyboard's selection commands: select all, select nothing, nudge.
@Suite("Editor: select all, select nothing, nudge")
struct SelectionCommandTests {
    @Test("select all selects every visible entity but erasers, and writes nothing")
    func selectAllSkipsErasers() throws {
        var editor = Canvas.editor()
        try editor.perform(.setDrawing(DrawingSettings(tool: .eraser, weight: 10)))
        try editor.send(.drawBegan(DrawPoint(location: Point(x: 600, y: 600), time: 0)))
        try editor.send(.drawEnded)
        let ops = try editor.perform(.selectAll)
        #expect(ops.isEmpty)
        #expect(editor.state.selection == Set(Canvas.all))
        try editor.perform(.clearSelection)
        #expect(editor.state.selection.isEmpty)
    }

    @Test("a nudge moves every selected entity by the offset in one transaction, one undo back")
    func nudgeMovesTheSelectionAsOneStep() throws {
        var editor = Canvas.editor()
        editor.state.selection = [Canvas.star, Canvas.square]
        let ops = try editor.perform(.nudge(by: Vector(dx: 10, dy: -1)))
        #expect(ops.count == 4 && Set(ops.map(\.transaction)).count == 1)
        #expect(editor.document[Canvas.star]?.transform == Transform(x: 110, y: 99))
        #expect(editor.document[Canvas.square]?.transform == Transform(x: 310, y: 99))
        #expect(editor.document[Canvas.note]?.transform == Transform(x: 100, y: 300), "unselected stays")
        try editor.perform(.undo)
        #expect(editor.document[Canvas.star]?.transform == Transform(x: 100, y: 100))
        #expect(throws: ModelError.self) { try editor.perform(.nudge(by: Vector(dx: .nan, dy: 0))) }
        #expect(try editor.perform(.nudge(by: .zero)).isEmpty)
    }

    @Test("with select-placed on, an entity placed by a command or by the shape tool becomes the selection; off, nothing is selected")
    func placedEntitiesBecomeTheSelectionWhenAsked() throws {
        var editor = Canvas.editor()
        editor.state.selection = [Canvas.star]
        let quiet = try editor.perform(.place(.emoji("🦊", size: 40), at: Point(x: 700, y: 700)))
        #expect(editor.state.selection == [Canvas.star], "off by default, as in EmojiArt")
        #expect(try editor.perform(.selectPlaced(true)).isEmpty, "a setting, no ops")
        let fox = try editor.perform(.place(.emoji("🦊", size: 40), at: Point(x: 800, y: 700)))
        #expect(editor.state.selection == [try #require(fox.first).entity])
        try editor.perform(.setDrawing(DrawingSettings(action: .shape)))
        try editor.send(.drawBegan(DrawPoint(location: Point(x: 900, y: 700), time: 0)))
        let shape = try editor.send(.drawEnded)
        #expect(editor.state.selection == [try #require(shape.first).entity])
        try editor.perform(.selectPlaced(false))
        try editor.perform(.place(.text("hi", font: "Menlo", size: 20), at: Point(x: 900, y: 800)))
        #expect(editor.state.selection == [try #require(shape.first).entity], "off again")
        #expect(quiet.count == 1)
    }
}
