@testable import EaselModel
import EaselTestSupport
import Foundation
import Testing

@testable import EaselRender

/// Erasures drawn as they belong to what they erased: each erased entity
/// wears a mask of its own, the eraser's ink carried into its frame.
@Suite("Rendering erasures that belong to what they erased")
struct ErasureRenderTests {
    /// A square at (100, 100), a pixel eraser across it along y = 100 from
    /// x = 40 to 160, and a second square placed at 400, 100.
    static func erased(_ tool: StrokeTool = .eraser) throws -> (editor: Editor, square: EntityID, eraser: EntityID, other: EntityID) {
        var editor = Editor(replica: ReplicaID(rawValue: 0xC1))
        try editor.perform(.place(.shape(.rectangle, width: 80, height: 80), at: Point(x: 100, y: 100)))
        let square = try #require(editor.document.zOrder.last)
        try editor.perform(.setDrawing(DrawingSettings(tool: tool, weight: 24)))
        try editor.send(.drawBegan(DrawPoint(location: Point(x: 40, y: 100), time: 0)))
        try editor.send(.drawMoved((1...24).map { DrawPoint(location: Point(x: 40 + Float($0) * 5, y: 100), time: Float($0) / 60) }))
        try editor.send(.drawEnded)
        let eraser = try #require(editor.document.zOrder.last)
        try editor.perform(.place(.shape(.rectangle, width: 80, height: 80), at: Point(x: 400, y: 100)))
        let other = try #require(editor.document.zOrder.last)
        editor.state.selection = []
        return (editor, square, eraser, other)
    }

    static func group(of id: EntityID, in svg: String) -> Substring { EraserRenderTests.group(of: id, in: svg) }

    /// The value of the first `transform="…"` after `marker` in `text`.
    static func transform(after marker: String, in text: Substring) throws -> Affine {
        let start = try #require(text.range(of: marker))
        let attribute = try #require(text[start.lowerBound...].range(of: "transform=\""))
        let end = try #require(text[attribute.upperBound...].firstIndex(of: "\""))
        return try Affine(svg: String(text[attribute.upperBound..<end]))
    }

    @Test("an erased entity wears a hole mask of its own; one moved or placed under the ink later does not")
    func onlyTheErasedEntityWearsTheHole() throws {
        var (editor, square, eraser, other) = try Self.erased()
        // The other square comes under the old ink.
        editor.state.selection = [other]
        try editor.send(.dragBegan(at: Point(x: 400, y: 100)))
        try editor.send(.dragEnded(translation: Vector(dx: -300, dy: 0)))
        try editor.perform(.place(.emoji("⭐️", size: 48), at: Point(x: 100, y: 100)))
        let later = try #require(editor.document.zOrder.last)
        let svg = SVGRenderer().render(editor.document)
        let name = EraserLayers.name(square)
        let squareGroup = Self.group(of: square, in: svg)
        #expect(squareGroup.contains("<mask id=\"holes-\(name)\""))
        #expect(squareGroup.contains("<g mask=\"url(#holes-\(name))\">"))
        #expect(squareGroup.contains("<use href=\"#ink-\(EraserLayers.name(eraser))\" fill=\"#000\""))
        #expect(!Self.group(of: other, in: svg).contains("mask"), "moved under the ink later: whole")
        #expect(!Self.group(of: later, in: svg).contains("mask"), "placed under the ink later: whole")
        let eraserGroup = Self.group(of: eraser, in: svg)
        #expect(eraserGroup.contains("<path id=\"ink-\(EraserLayers.name(eraser))\""))
        #expect(!eraserGroup.contains("<mask"), "the eraser masks nothing itself")
    }

    @Test("the hole moves, scales and turns with its entity: the ink lands where it was on the entity")
    func holeFollowsTheEntity() throws {
        var (editor, square, eraser, _) = try Self.erased()
        editor.state.selection = [square]
        try editor.send(.dragBegan(at: Point(x: 100, y: 100)))
        try editor.send(.dragEnded(translation: Vector(dx: 300, dy: 200)))
        try editor.send(.pinchBegan(around: Point(x: 400, y: 300)))
        try editor.send(.pinchEnded(scale: 2))
        try editor.send(.rotateBegan)
        try editor.send(.rotateEnded(angle: .pi / 2))
        let svg = SVGRenderer().render(editor.document)
        let squareGroup = Self.group(of: square, in: svg)
        let entity = try Self.transform(after: "id=\"e-", in: squareGroup)
        let hole = try Self.transform(after: "<use href=\"#ink-", in: squareGroup)
        let ink = try Self.transform(after: "<path id=\"ink-", in: Self.group(of: eraser, in: svg))
        // The eraser's first sample, (40, 100), lay 60 left of the square's
        // centre; the square is now at (400, 300), twice as big, turned a
        // quarter clockwise: that spot is now 120 above its centre.
        let landed = entity.apply(hole.apply(ink.apply(Point(x: 0, y: 0))))
        #expect(abs(landed.x - 400) < 0.1 && abs(landed.y - 180) < 0.1, "landed at \(landed)")
    }

    @Test("a blur eraser draws only what it erased again, blurred, inside its ink carried along, instead of it sharp")
    func blurEraserBlursWhatItErased() throws {
        let (editor, square, eraser, other) = try Self.erased(.blur)
        let svg = SVGRenderer().render(editor.document)
        let name = EraserLayers.name(square)
        let squareGroup = Self.group(of: square, in: svg)
        #expect(squareGroup.contains("<mask id=\"blurs-\(name)\""))
        #expect(squareGroup.contains("<use href=\"#ink-\(EraserLayers.name(eraser))\" fill=\"#fff\""))
        #expect(squareGroup.contains("<g mask=\"url(#blurs-\(name))\" filter=\"url(#blur)\"><rect"))
        #expect(
            squareGroup.contains("<g mask=\"url(#holes-\(name))\"><rect"),
            "beneath the blur's ink the sharp drawing gives way to the blurred one")
        #expect(!Self.group(of: other, in: svg).contains("mask"))
        #expect(svg.contains("<filter id=\"blur\""))
    }

    @Test("undo of the erasure leaves the entity whole")
    func undoLeavesTheEntityWhole() throws {
        var (editor, square, _, _) = try Self.erased()
        try editor.perform(.undo)  // the second square
        try editor.perform(.undo)  // the erasure
        let svg = SVGRenderer().render(editor.document)
        #expect(!Self.group(of: square, in: svg).contains("mask"))
        #expect(!svg.contains("ink-"))
    }
}

/// A 2-D affine map read from an SVG `transform` of translate, rotate and
/// scale: enough to follow a point through the renderer's groups.
struct Affine {
    var a: Double = 1, b: Double = 0, c: Double = 0, d: Double = 1, e: Double = 0, f: Double = 0

    init() {}

    init(svg: String) throws {
        var result = Affine()
        var rest = Substring(svg)
        while let open = rest.firstIndex(of: "(") {
            let name = rest[..<open].trimmingCharacters(in: .whitespaces)
            let close = try #require(rest[open...].firstIndex(of: ")"))
            let numbers = rest[rest.index(after: open)..<close].split(separator: " ").compactMap { Double($0) }
            var step = Affine()
            switch name {
            case "translate": (step.e, step.f) = (numbers[0], numbers.count > 1 ? numbers[1] : 0)
            case "scale": (step.a, step.d) = (numbers[0], numbers.count > 1 ? numbers[1] : numbers[0])
            case "rotate":
                let radians = numbers[0] * Double.pi / 180
                (step.a, step.b, step.c, step.d) = (cos(radians), sin(radians), -sin(radians), cos(radians))
            default: Issue.record("unknown transform \(name)")
            }
            result = result.then(step)
            rest = rest[rest.index(after: close)...]
        }
        self = result
    }

    /// This map followed, on the right, by `inner` (SVG lists outer first).
    func then(_ inner: Affine) -> Affine {
        var out = Affine()
        out.a = a * inner.a + c * inner.b
        out.b = b * inner.a + d * inner.b
        out.c = a * inner.c + c * inner.d
        out.d = b * inner.c + d * inner.d
        out.e = a * inner.e + c * inner.f + e
        out.f = b * inner.e + d * inner.f + f
        return out
    }

    func apply(_ point: Point) -> Point {
        let x = Double(point.x), y = Double(point.y)
        return Point(x: Float(a * x + c * y + e), y: Float(b * x + d * y + f))
    }
}
