import EaselTestSupport
import Testing

@testable import EaselModel

/// The object eraser and the lasso: paths drawn across the canvas that
/// delete or select what they reach.
@Suite("Editor: object eraser and lasso")
struct EraserAndLassoTests {
    /// An editor with one entity per given field list, created in one
    /// transaction each; their IDs in that order.
    static func editor(_ entities: [(EntityKind, [Field])]) throws -> (Editor, [EntityID]) {
        var editor = Editor(replica: ReplicaID(rawValue: 0xA1))
        var ids: [EntityID] = []
        for (kind, fields) in entities {
            var transaction = try editor.clock.beginTransaction()
            let key = editor.document.zPlacementOnTop(jitter: 0)
            let id = try transaction.create(kind, fields + [.zKey(key)])
            ids.append(id)
            _ = editor.commit(transaction)
        }
        return (editor, ids)
    }

    static func stroke(_ points: [Point], weight: Float = 1) -> (EntityKind, [Field]) {
        (.stroke, [.tool(.pen), .weight(weight), .x(points[0].x), .y(points[0].y)])
    }

    /// Appends a stroke's samples (relative to its first point).
    static func draw(_ points: [Point], on id: EntityID, in editor: inout Editor) throws {
        var transaction = try editor.clock.beginTransaction()
        let samples = InkMotion.samples(through: points, speed: 200, rate: 120)
        try transaction.append(samples, to: id, at: 0)
        _ = editor.commit(transaction)
    }

    @discardableResult
    static func drag(_ editor: inout Editor, along points: [Point]) throws -> [Op] {
        try editor.send(.drawBegan(DrawPoint(location: points[0], time: 0)))
        try editor.send(
            .drawMoved(points.dropFirst().enumerated().map { DrawPoint(location: $1, time: Float($0 + 1) / 60) }))
        return try editor.send(.drawEnded)
    }

    @Test("the object eraser deletes exactly the entities its path touches, rotated, scaled, thin and text ones included, as one transaction")
    func objectEraserDeletesWhatItTouches() throws {
        let vertical = [Point(x: 450, y: 60), Point(x: 450, y: 140)]
        let hook = [Point(x: 600, y: 60), Point(x: 660, y: 60), Point(x: 660, y: 140)]
        var (editor, ids) = try Self.editor([
            (.emoji, [.character("🍎"), .size(40), .x(100), .y(100)]),
            // A bar lying flat would stay clear of the path; turned upright it crosses it.
            (.shape, [.shape(.rectangle), .width(100), .height(10), .x(250), .y(130), .rotation(.pi / 2)]),
            // A small square reaches the path only at three times its size.
            (.shape, [.shape(.rectangle), .width(10), .height(10), .x(400), .y(112), .scale(3)]),
            Self.stroke(vertical),
            (.text, [.text("hello"), .size(20), .x(200), .y(110)]),
            // Its box holds the path's end; its ink stays 30 units away.
            Self.stroke(hook),
            (.emoji, [.character("🍐"), .size(40), .x(100), .y(200)]),
            (.shape, [.shape(.rectangle), .width(100), .height(10), .x(320), .y(130)]),
        ])
        try Self.draw(vertical.map { Point(x: $0.x - 450, y: $0.y - 60) }, on: ids[3], in: &editor)
        try Self.draw(hook.map { Point(x: $0.x - 600, y: $0.y - 60) }, on: ids[5], in: &editor)
        let before = editor.document.zOrder
        try editor.perform(.setDrawing(DrawingSettings(action: .eraseObjects, weight: 6)))
        let ops = try Self.drag(&editor, along: [Point(x: 0, y: 100), Point(x: 300, y: 100), Point(x: 630, y: 100)])
        let erased = [ids[0], ids[1], ids[2], ids[3], ids[4]]
        #expect(Set(ops.map(\.entity)) == Set(erased))
        #expect(Set(ops.map(\.transaction)).count == 1, "one transaction")
        #expect(editor.document.zOrder == [ids[5], ids[6], ids[7]])
        try editor.perform(.undo)
        #expect(editor.document.zOrder == before, "one undo brings them all back")
    }

    @Test("the object eraser's width is its weight: a wider path reaches what a thinner one misses")
    func objectEraserWidthIsItsWeight() throws {
        for (weight, reaches) in [(Float(8), false), (Float(40), true)] {
            var (editor, ids) = try Self.editor([(.emoji, [.character("🍎"), .size(20), .x(100), .y(130)])])
            try editor.perform(.setDrawing(DrawingSettings(action: .eraseObjects, weight: weight)))
            // The emoji's box starts 20 below the path.
            try Self.drag(&editor, along: [Point(x: 0, y: 100), Point(x: 200, y: 100)])
            #expect(editor.document.isVisible(ids[0]) != reaches, "weight \(weight)")
        }
    }

    @Test("the lasso selects exactly the entities whose centre it surrounds; one the line crosses is in when its centre is")
    func lassoSelectsByCentre() throws {
        var (editor, ids) = try Self.editor([
            (.emoji, [.character("🍎"), .size(20), .x(150), .y(150)]),  // inside
            (.shape, [.shape(.rectangle), .width(120), .height(20), .x(190), .y(120)]),  // crosses, centre in
            (.shape, [.shape(.rectangle), .width(120), .height(20), .x(290), .y(180)]),  // crosses, centre out
            (.emoji, [.character("🍐"), .size(20), .x(400), .y(400)]),  // outside
        ])
        try editor.perform(.setDrawing(DrawingSettings(action: .lasso)))
        let ops = try Self.drag(
            &editor,
            along: [Point(x: 100, y: 100), Point(x: 240, y: 100), Point(x: 240, y: 240), Point(x: 100, y: 240)])
        #expect(ops.isEmpty, "selecting writes nothing")
        #expect(editor.state.selection == [ids[0], ids[1]])
    }

    @Test("a lasso selection moves as one, in one transaction, and deletes as one")
    func lassoSelectionMovesAsOne() throws {
        var (editor, ids) = try Self.editor([
            (.emoji, [.character("🍎"), .size(20), .x(150), .y(150)]),
            (.emoji, [.character("🍐"), .size(20), .x(200), .y(200)]),
            (.emoji, [.character("🍋"), .size(20), .x(400), .y(400)]),
        ])
        try editor.perform(.setDrawing(DrawingSettings(action: .lasso)))
        try Self.drag(&editor, along: [Point(x: 100, y: 100), Point(x: 260, y: 100), Point(x: 180, y: 260)])
        #expect(editor.state.selection == [ids[0], ids[1]])
        try editor.send(.dragBegan(at: Point(x: 150, y: 150)))
        let moved = try editor.send(.dragEnded(translation: Vector(dx: 10, dy: -5)))
        #expect(Set(moved.map(\.transaction)).count == 1)
        #expect(editor.document[ids[0]]?.transform.x == 160 && editor.document[ids[1]]?.transform.y == 195)
        #expect(editor.document[ids[2]]?.transform.x == 400)
        try editor.perform(.deleteSelection)
        #expect(editor.document.zOrder == [ids[2]])
    }

    @Test("a lasso selection scales, rotates, comes forward, goes backward and duplicates as one, and nothing outside it changes")
    func lassoSelectionEditsAsOne() throws {
        var (editor, ids) = try Self.editor([
            (.emoji, [.character("🍎"), .size(20), .x(150), .y(150)]),  // lassoed
            (.emoji, [.character("🍐"), .size(20), .x(420), .y(100)]),
            (.shape, [.shape(.rectangle), .width(40), .height(20), .x(200), .y(200)]),  // lassoed
            // Outside the lasso, overlapping the rectangle's corner.
            (.emoji, [.character("🍋"), .size(20), .x(225), .y(215)]),
        ])
        let lassoed: Set = [ids[0], ids[2]]
        let outside = [ids[1], ids[3]].map { editor.document[$0] }
        try editor.perform(.setDrawing(DrawingSettings(action: .lasso)))
        try Self.drag(&editor, along: [Point(x: 100, y: 100), Point(x: 260, y: 100), Point(x: 180, y: 260)])
        #expect(editor.state.selection == lassoed)

        /// Each edit is one transaction on the lassoed entities alone.
        func check(_ ops: [Op], _ what: String) {
            #expect(!ops.isEmpty && Set(ops.map(\.transaction)).count == 1, "\(what): one transaction")
            #expect(Set(ops.map(\.entity)).isSubset(of: lassoed), "\(what) wrote to \(Set(ops.map(\.entity)))")
            #expect([ids[1], ids[3]].map { editor.document[$0] } == outside, "\(what) changed an entity outside")
        }
        try editor.send(.pinchBegan(around: Point(x: 180, y: 180)))
        check(try editor.send(.pinchEnded(scale: 1.5)), "the pinch")
        #expect(lassoed.allSatisfy { editor.document[$0]?.transform.scale == 1.5 })
        try editor.send(.rotateBegan)
        check(try editor.send(.rotateEnded(angle: 0.5)), "the turn")
        #expect(lassoed.allSatisfy { editor.document[$0]?.transform.rotation == 0.5 })
        check(try editor.perform(.bringForward), "bring forward")
        #expect(editor.document.zOrder == [ids[0], ids[1], ids[3], ids[2]], "each past the next one above that overlaps it")
        check(try editor.perform(.sendBackward), "send backward")
        #expect(editor.document.zOrder == ids)

        let before = ids.map { editor.document[$0] }
        let copied = try editor.perform(.duplicateSelection)
        #expect(Set(copied.map(\.transaction)).count == 1)
        #expect(ids.map { editor.document[$0] } == before, "duplicating leaves every original as it was")
        let copies = editor.document.zOrder.filter { !ids.contains($0) }
        #expect(copies.count == 2 && editor.state.selection == Set(copies))
        for (original, copy) in zip([ids[0], ids[2]], copies) {
            let original = try #require(editor.document[original])
            let copy = try #require(editor.document[copy])
            #expect(copy.content == original.content && copy.transform.scale == 1.5 && copy.transform.rotation == 0.5)
        }
    }

    @Test("a weight outside the tool's slider range is brought into it")
    func weightIsClampedToTheToolsRange() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 0xA1))
        try editor.perform(.setDrawing(DrawingSettings(tool: .pencil, weight: 50)))
        #expect(editor.state.drawing.weight == StrokeTool.pencil.ink.weights.upperBound)
        try editor.perform(.setDrawing(DrawingSettings(tool: .brush, weight: 1)))
        #expect(editor.state.drawing.weight == StrokeTool.brush.ink.weights.lowerBound)
        try editor.perform(.setDrawing(DrawingSettings(action: .eraseObjects, tool: .pencil, weight: 50)))
        #expect(editor.state.drawing.weight == 50, "the object eraser's range, not the pencil's")
    }
}
