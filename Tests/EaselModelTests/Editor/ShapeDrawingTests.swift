import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Editor: shapes by tap or drag")
struct ShapeDrawingTests {
    static func shape(after points: [Point], kind: ShapeKind = .star, zoom: Float = 1) throws -> Entity? {
        var editor = Editor(replica: ReplicaID(rawValue: 0xC1))
        editor.state.viewport = Viewport(pan: Vector(dx: 10, dy: 20), zoom: zoom)
        try editor.perform(.setDrawing(DrawingSettings(action: .shape, shape: kind)))
        try editor.send(.drawBegan(DrawPoint(location: points[0], time: 0)))
        if points.count > 1 {
            try editor.send(.drawMoved(points.dropFirst().map { DrawPoint(location: $0, time: 0.1) }))
        }
        let ops = try editor.send(.drawEnded)
        #expect(Set(ops.map(\.transaction)).count == 1)
        return editor.document.entities.last
    }

    @Test("a shape placed by a tap gets the default size, centred where the tap was")
    func tapPlacesDefaultSize() throws {
        let star = try #require(try Self.shape(after: [Point(x: 110, y: 220), Point(x: 111, y: 221)]))
        #expect(star.content == .shape(.star, width: 120, height: 80))
        #expect(star.transform.x == 100 && star.transform.y == 200)
    }

    @Test("a shape dragged out takes the drag's box, whichever way it was dragged, in document units")
    func dragSetsTheBox() throws {
        let ellipse = try #require(
            try Self.shape(
                after: [Point(x: 410, y: 320), Point(x: 300, y: 300), Point(x: 210, y: 120)], kind: .ellipse, zoom: 2))
        #expect(ellipse.content == .shape(.ellipse, width: 100, height: 100))
        #expect(ellipse.transform.x == 150 && ellipse.transform.y == 100)
    }

    @Test("a shape drag under 4 document units both ways is a tap and places the default size; 4 or more either way makes the drag's box")
    func dragThresholdIsFourDocumentUnits() throws {
        #expect(DrawingSettings.shapeDragThreshold == 4)
        let size = DrawingSettings.tappedShapeSize
        // Zoomed in twice, 7.9 screen units are 3.95 document units.
        for (end, zoom) in [(Point(x: 103.9, y: 103.9), Float(1)), (Point(x: 107.9, y: 92.1), 2)] {
            let tapped = try #require(try Self.shape(after: [Point(x: 100, y: 100), end], kind: .bubble, zoom: zoom))
            #expect(tapped.content == .shape(.bubble, width: size.width, height: size.height), "to \(end) at zoom \(zoom)")
        }
        let wide = try #require(try Self.shape(after: [Point(x: 100, y: 100), Point(x: 104, y: 100)], kind: .bubble))
        #expect(wide.content == .shape(.bubble, width: 4, height: 1), "no side thinner than a unit")
        #expect(wide.transform.x == 92 && wide.transform.y == 80, "centred in the drag's box")
        let tall = try #require(
            try Self.shape(after: [Point(x: 100, y: 100), Point(x: 103, y: 108)], kind: .bubble, zoom: 2))
        #expect(tall.content == .shape(.bubble, width: 1.5, height: 4))
    }

    @Test("a shape drawn with the shape tool takes the drawing's colour, weight and fill; defaults are not written")
    func shapeToolTakesTheDrawingStyle() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 0xC1))
        let blue = Color(rawValue: 0x2B7C_FFFF)
        let tint = Color(rawValue: 0x2B7C_FF40)
        try editor.perform(.setDrawing(DrawingSettings(action: .shape, color: blue, weight: 6, fill: tint)))
        try editor.send(.drawBegan(DrawPoint(location: Point(x: 100, y: 100), time: 0)))
        let ops = try editor.send(.drawEnded)
        let shape = try #require(editor.document.entities.last)
        #expect(shape.style == Style(color: blue, fill: tint, weight: 6))
        try editor.perform(.setDrawing(DrawingSettings(action: .shape, weight: 2)))
        try editor.send(.drawBegan(DrawPoint(location: Point(x: 300, y: 100), time: 0)))
        let plain = try editor.send(.drawEnded)
        #expect(plain.count == 1 && ops.count == 1)
        if case .create(_, let fields)? = plain.first?.action {
            #expect(!fields.contains { [.color, .weight, .fill].contains($0.id) }, "black, weight 2, no fill: defaults")
        } else {
            Issue.record("a create")
        }
    }
}
