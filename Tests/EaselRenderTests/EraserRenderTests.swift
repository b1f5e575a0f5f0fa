@testable import EaselModel
import EaselTestSupport
import Foundation
import Testing

@testable import EaselRender

/// The pixel and blur erasers in SVG, as erasers drawn before erasures were
/// recorded are read: masks over everything beneath them.
@Suite("Rendering erasers drawn before erasures were recorded")
struct EraserRenderTests {
    /// A red square, a pixel eraser stroke across it, and a blue square
    /// placed after the eraser, over the same spot; with `blur`, a blur
    /// eraser over a second red square far to the right. The erasers are
    /// as an editor made them before they recorded what they erased.
    static func document(blur: Bool = false) throws -> (Document, [EntityID]) {
        var editor = Editor(replica: ReplicaID(rawValue: 0xB1))
        var ids: [EntityID] = []
        var ops: [Op] = []
        func place(_ x: Float, _ color: Color) throws {
            ops += try editor.perform(.place(.shape(.rectangle, width: 80, height: 80), at: Point(x: x, y: 100)))
            let id = try #require(editor.document.zOrder.last)
            editor.state.selection = [id]
            ops += try editor.perform(.setStyle(.fill(color)))
            editor.state.selection = []
            ids.append(id)
        }
        func erase(_ tool: StrokeTool, from x: Float) throws {
            try editor.perform(.setDrawing(DrawingSettings(tool: tool, weight: 24)))
            ops += try editor.send(.drawBegan(DrawPoint(location: Point(x: x - 60, y: 100), time: 0)))
            ops += try editor.send(
                .drawMoved((1...24).map { DrawPoint(location: Point(x: x - 60 + Float($0) * 5, y: 100), time: Float($0) / 60) }))
            ops += try editor.send(.drawEnded)
            ids.append(try #require(editor.document.zOrder.last))
        }
        try place(100, Color(red: 220, green: 30, blue: 30))
        try erase(.eraser, from: 100)
        try place(130, Color(red: 30, green: 30, blue: 220))
        if blur {
            try place(400, Color(red: 220, green: 30, blue: 30))
            try erase(.blur, from: 400)
        }
        return (Document(applying: ops.compactMap(Self.withoutErasures)), ids)
    }

    /// An op as an editor wrote it before erasers recorded what they erased.
    static func withoutErasures(_ op: Op) -> Op? {
        switch op.action {
        case .set(_, .erases): nil
        case .create(let kind, let fields):
            Op(id: op.id, transaction: op.transaction, action: .create(kind, fields.filter { $0.id != .erases }))
        default: op
        }
    }

    /// The line of the SVG that draws the entity.
    static func group(of id: EntityID, in svg: String) -> Substring {
        guard let start = svg.range(of: "data-id=\"\(id)\""),
            let lineStart = svg[..<start.lowerBound].lastIndex(of: "\n"),
            let lineEnd = svg[start.upperBound...].firstIndex(of: "\n")
        else { return "" }
        return svg[svg.index(after: lineStart)..<lineEnd]
    }

    @Test("an entity beneath a pixel eraser wears its mask; one placed after it does not")
    func pixelEraserMasksOnlyWhatLiesBeneath() throws {
        let (document, ids) = try Self.document()
        let svg = SVGRenderer().render(document)
        let eraser = EraserLayers.name(ids[1])
        #expect(Self.group(of: ids[0], in: svg).contains("mask=\"url(#below-\(eraser))\""))
        #expect(!Self.group(of: ids[2], in: svg).contains("mask="), "placed after the eraser")
        let eraserGroup = Self.group(of: ids[1], in: svg)
        #expect(eraserGroup.contains("<mask id=\"below-\(eraser)\""))
        #expect(eraserGroup.contains("<use href=\"#ink-\(eraser)\" fill=\"#000\"/>"))
        #expect(!eraserGroup.contains("fill=\"#ffffff\""), "a pixel eraser paints nothing itself")
    }

    @Test("an eraser's mask covers it and every eraser above it, so a lower entity is cleared by all of them")
    func masksCoverEveryEraserAbove() throws {
        let (document, ids) = try Self.document(blur: true)
        let svg = SVGRenderer().render(document)
        let pixel = EraserLayers.name(ids[1])
        let blur = EraserLayers.name(ids[4])
        let lower = Self.group(of: ids[1], in: svg)
        #expect(lower.contains("<use href=\"#ink-\(pixel)\"") && lower.contains("<use href=\"#ink-\(blur)\""))
        let upper = Self.group(of: ids[4], in: svg)
        #expect(upper.contains("<use href=\"#ink-\(blur)\" fill=\"#000\"") && !upper.contains("#ink-\(pixel)"))
        #expect(Self.group(of: ids[2], in: svg).contains("mask=\"url(#below-\(blur))\""), "between the two erasers")
    }

    @Test("a blur eraser draws, blurred and inside its ink, the entities beneath it that its box meets")
    func blurEraserBlursWhatLiesBeneath() throws {
        let (document, ids) = try Self.document(blur: true)
        let svg = SVGRenderer().render(document)
        let blur = Self.group(of: ids[4], in: svg)
        let name = EraserLayers.name(ids[4])
        #expect(blur.contains("<g mask=\"url(#in-\(name))\" filter=\"url(#blur)\">"))
        #expect(blur.contains("<use href=\"#e-\(EraserLayers.name(ids[3]))\"/>"))
        #expect(!blur.contains("#e-\(EraserLayers.name(ids[0]))"), "a square its box does not meet")
        #expect(svg.contains("<filter id=\"blur\""))
        if let path = environment("EASEL_ERASER_SVG") { try svg.write(toFile: path, atomically: true, encoding: .utf8) }
    }

    /// The document as it would be had its erasers recorded nothing.
    static func legacy(_ document: Document) -> Document {
        Document(applying: document.snapshotOps.compactMap(withoutErasures))
    }

    @Test("an image beneath a blur eraser is drawn blurred inside the eraser's ink; an image placed after it stays outside the blur")
    func blurEraserBlursAnImageBeneathIt() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 0xB3))
        let photo = try #require(BlobHash(hex: String(repeating: "cd", count: 32)))
        let later = try #require(BlobHash(hex: String(repeating: "ef", count: 32)))
        try editor.perform(.place(.image(photo, width: 160, height: 90), at: Point(x: 200, y: 100)))
        let beneath = try #require(editor.document.zOrder.last)
        try editor.perform(.setDrawing(DrawingSettings(tool: .blur, weight: 24)))
        try editor.send(.drawBegan(DrawPoint(location: Point(x: 140, y: 100), time: 0)))
        try editor.send(
            .drawMoved((1...24).map { DrawPoint(location: Point(x: 140 + Float($0) * 5, y: 100), time: Float($0) / 60) }))
        try editor.send(.drawEnded)
        let blur = try #require(editor.document.zOrder.last)
        try editor.perform(.place(.image(later, width: 160, height: 90), at: Point(x: 210, y: 110)))
        let after = try #require(editor.document.zOrder.last)
        #expect(editor.document[beneath]?.kind == .image && editor.document[after]?.kind == .image)

        let svg = SVGRenderer().render(Self.legacy(editor.document))
        let blurGroup = Self.group(of: blur, in: svg)
        let name = EraserLayers.name(blur)
        let blurred = try #require(blurGroup.range(of: "<g mask=\"url(#in-\(name))\" filter=\"url(#blur)\">"))
        let closing = try #require(blurGroup[blurred.upperBound...].range(of: "</g>"))
        let inside = blurGroup[blurred.upperBound..<closing.lowerBound]
        #expect(inside.contains("<use href=\"#e-\(EraserLayers.name(beneath))\"/>"), "the image beneath is blurred")
        #expect(!blurGroup.contains("#e-\(EraserLayers.name(after))"), "the image placed after is not")
        #expect(Self.group(of: beneath, in: svg).contains("<image "))
        #expect(Self.group(of: beneath, in: svg).contains("mask=\"url(#below-\(name))\""))
        let afterGroup = Self.group(of: after, in: svg)
        #expect(afterGroup.contains("<image ") && !afterGroup.contains("mask="), "placed after the eraser: whole")
    }
}
