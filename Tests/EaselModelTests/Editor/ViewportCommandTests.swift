import EaselTestSupport
import Testing

@testable import EaselModel

/// Pan and zoom as commands (the wheel, the zoom menu): the view moves,
/// the document does not.
@Suite("Editor: viewport commands")
struct ViewportCommandTests {
    @Test("a pan moves the view by the screen translation and writes nothing")
    func panMovesTheView() throws {
        var editor = Canvas.editor()
        let ops = try editor.perform(.setViewport(.pan(by: Vector(dx: -30, dy: 12))))
        #expect(ops.isEmpty && !editor.canUndo)
        #expect(editor.state.viewport == Viewport(pan: Vector(dx: -30, dy: 12), zoom: 1))
    }

    @Test("a zoom keeps the document point under the anchor still, within the zoom range")
    func zoomKeepsTheAnchorStill() throws {
        var editor = Canvas.editor()
        let anchor = Point(x: 300, y: 200)
        let under = editor.state.viewport.documentPoint(fromScreen: anchor)
        try editor.perform(.setViewport(.zoom(by: 1.25, around: anchor)))
        #expect(editor.state.viewport.zoom == 1.25)
        #expect(editor.state.viewport.documentPoint(fromScreen: anchor) == under)
        try editor.perform(.setViewport(.zoomTo(1, around: anchor)))
        #expect(editor.state.viewport.zoom == 1)
        for _ in 0..<40 { try editor.perform(.setViewport(.zoom(by: 2, around: anchor))) }
        #expect(editor.state.viewport.zoom == Viewport.zoomRange.upperBound)
    }

    @Test("fit to content shows every entity, centred, within the margin, at most 100 %")
    func fitToContentShowsEverything() throws {
        var editor = Canvas.editor()
        try editor.perform(.setViewport(.fit(.content, width: 400, height: 300)))
        let viewport = editor.state.viewport
        let bounds = try #require(editor.document.visibleBounds())
        let corner = viewport.screenPoint(fromDocument: Point(x: bounds.minX, y: bounds.minY))
        let far = viewport.screenPoint(fromDocument: Point(x: bounds.maxX, y: bounds.maxY))
        #expect(corner.x >= 31.9 && corner.y >= 31.9 && far.x <= 368.1 && far.y <= 268.1)
        #expect(abs((corner.x + far.x) / 2 - 200) < 0.01 && abs((corner.y + far.y) / 2 - 150) < 0.01)
        try editor.perform(.setViewport(.fit(.content, width: 4000, height: 3000)))
        #expect(editor.state.viewport.zoom == 1, "never past 100 %")
    }

    @Test("fit to selection zooms onto the selection, up to 400 %; with nothing selected it is refused and changes nothing")
    func fitToSelection() throws {
        var editor = Canvas.editor()
        #expect(throws: ModelError.self) { try editor.perform(.setViewport(.fit(.selection, width: 800, height: 600))) }
        #expect(editor.state.viewport == .standard)
        editor.state.selection = [Canvas.star]
        try editor.perform(.setViewport(.fit(.selection, width: 800, height: 600)))
        #expect(editor.state.viewport.zoom == 4)
        let centre = editor.state.viewport.screenPoint(fromDocument: try #require(Canvas.centres[Canvas.star]))
        #expect(abs(centre.x - 400) < 0.01 && abs(centre.y - 300) < 0.01)
    }

    @Test("bad numbers are refused and change nothing")
    func badNumbersAreRefused() {
        var editor = Canvas.editor()
        for change: ViewportChange in [
            .pan(by: Vector(dx: .nan, dy: 0)), .zoom(by: 0, around: .zero), .zoom(by: .infinity, around: .zero),
            .zoomTo(-1, around: .zero), .fit(.content, width: 0, height: 100),
        ] {
            #expect(throws: ModelError.self) { try editor.perform(.setViewport(change)) }
        }
        #expect(editor.state.viewport == .standard)
    }
}
