import EaselTestSupport
import Testing

@testable import EaselModel

/// The box a selection's handles sit on.
@Suite("Editor: the selection's frame")
struct SelectionFrameTests {
    @Test("one entity's frame is its own box, scaled and turned with it while a handle gesture is in flight")
    func oneEntityFrameTurnsWithIt() throws {
        var editor = Canvas.editor()
        #expect(editor.selectionFrame == nil, "nothing selected, no frame")
        editor.state.selection = [Canvas.square]
        #expect(editor.selectionFrame == SelectionFrame(center: Point(x: 300, y: 100), width: 80, height: 80, rotation: 0))
        try editor.send(.pinchBegan(around: Point(x: 300, y: 100)))
        try editor.send(.pinchChanged(scale: 1.5))
        #expect(editor.selectionFrame?.width == 120, "the frame follows the pinch before it ends")
        try editor.send(.pinchEnded(scale: 2))
        try editor.send(.rotateBegan)
        try editor.send(.rotateChanged(angle: 0.5))
        let frame = try #require(editor.selectionFrame)
        #expect(frame.width == 160 && frame.height == 160 && frame.rotation == 0.5)
        #expect(frame.center == Point(x: 300, y: 100), "an entity turns about its centre")
    }

    @Test("several entities share one upright frame around them all, which follows a drag")
    func severalEntitiesShareOneUprightFrame() throws {
        var editor = Canvas.editor()
        editor.state.selection = [Canvas.star, Canvas.square]
        let frame = try #require(editor.selectionFrame)
        #expect(frame == SelectionFrame(center: Point(x: 210, y: 100), width: 260, height: 80, rotation: 0))
        try editor.send(.dragBegan(at: Point(x: 100, y: 100)))
        try editor.send(.dragChanged(translation: Vector(dx: 10, dy: 5)))
        #expect(editor.selectionFrame?.center == Point(x: 220, y: 105))
    }

    @Test("an eraser adds nothing to a frame, and a frame of erasers alone is none")
    func erasersAddNothingToAFrame() throws {
        var editor = Canvas.editor()
        try editor.perform(.setDrawing(DrawingSettings(tool: .eraser, weight: 10)))
        try editor.send(.drawBegan(DrawPoint(location: Point(x: 600, y: 600), time: 0)))
        try editor.send(.drawEnded)
        let eraser = try #require(editor.document.entities.first { $0.isEraser }?.id)
        #expect(editor.document.frame(of: [eraser]) { $0.transform } == nil)
        #expect(editor.document.frame(of: [eraser, Canvas.star]) { $0.transform }?.width == 40)
    }
}
