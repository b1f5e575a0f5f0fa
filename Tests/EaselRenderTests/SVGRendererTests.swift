import EaselModel
import EaselRender
import EaselTestSupport
import Foundation
import Testing

/// The SVG of a fixture document with every kind of entity, against a
/// golden file; and that rendering is a function of the document alone.
@Suite struct SVGRendererTests {
    /// Every kind, every shape, every text style and alignment, strokes
    /// of each tool, an arrow end cap, a transformed entity, z-order moves.
    static func fixture() throws -> Document {
        var editor = Editor(replica: ReplicaID(rawValue: 0xF1))
        func select(_ point: Point) throws {
            _ = try editor.send(.tap(at: Point(x: 5000, y: 5000)))
            _ = try editor.send(.tap(at: point))
        }
        _ = try editor.perform(.place(.emoji("🍎", size: 64), at: Point(x: 80, y: 80)))
        for (index, shape) in ShapeKind.allCases.enumerated() {
            let x = Float(200 + index * 140)
            _ = try editor.perform(.place(.shape(shape, width: 120, height: 80), at: Point(x: x, y: 80)))
            try select(Point(x: x, y: 80))
            _ = try editor.perform(.setStyle(.fill(Color(rawValue: 0x4E79_A7FF &+ UInt32(index) << 16))))
            _ = try editor.perform(.setStyle(.color(Color(rawValue: 0x2222_22FF))))
            _ = try editor.perform(.setStyle(.weight(3)))
        }
        let texts: [(TextStyle, TextAlignment, String)] = [
            (.regular, .left, "Regular, left"), (.outlined, .center, "Outlined\ncentred"),
            (.framed, .right, "Framed & <right>"),
        ]
        for (index, (style, alignment, string)) in texts.enumerated() {
            let point = Point(x: Float(160 + index * 260), y: 220)
            _ = try editor.perform(.place(.text(string, font: "Georgia", size: 28), at: point))
            try select(point)
            _ = try editor.perform(.setStyle(.textStyle(style)))
            _ = try editor.perform(.setStyle(.alignment(alignment)))
            _ = try editor.perform(.setStyle(.color(Color(rawValue: 0xE159_59FF))))
        }
        let blob = try #require(BlobHash(hex: String(repeating: "ab", count: 32)))
        _ = try editor.perform(.place(.image(blob, width: 160, height: 90), at: Point(x: 900, y: 230)))
        for (index, tool) in StrokeTool.allCases.enumerated() {
            let y = Float(320 + index * 40)
            let endCap: EndCap = index == 0 ? .arrow : .round
            _ = try editor.perform(
                .setDrawing(DrawingSettings(tool: tool, color: Color(rawValue: 0x59A1_4FCC), weight: 6, endCap: endCap))
            )
            _ = try editor.send(.drawBegan(DrawPoint(location: Point(x: 60, y: y), time: 0)))
            _ = try editor.send(
                .drawMoved([
                    DrawPoint(location: Point(x: 160, y: y + 20), time: 0.1),
                    DrawPoint(location: Point(x: 260, y: y), time: 0.2),
                ]))
            _ = try editor.send(.drawEnded)
        }
        // A transformed emoji, brought forward over the shapes.
        _ = try editor.perform(.place(.emoji("⭐", size: 48), at: Point(x: 600, y: 400)))
        try select(Point(x: 600, y: 400))
        _ = try editor.send(.rotateBegan)
        _ = try editor.send(.rotateEnded(angle: 0.5))
        _ = try editor.send(.pinchBegan(around: Point(x: 600, y: 400)))
        _ = try editor.send(.pinchEnded(scale: 1.5))
        _ = try editor.perform(.sendBackward)
        // A single-sample stroke is a dot.
        _ = try editor.send(.drawBegan(DrawPoint(location: Point(x: 700, y: 560), time: 0)))
        _ = try editor.send(.drawEnded)
        return editor.document
    }

    private let golden = packageRoot.appendingPathComponent("Tests/EaselRenderTests/Golden/fixture.svg")

    @Test func theFixtureRendersExactlyAsTheGoldenSVG() throws {
        let svg = SVGRenderer().render(try Self.fixture())
        if ProcessInfo.processInfo.environment["EASEL_UPDATE_GOLDEN"] == "1" {
            try svg.write(to: golden, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        #expect(
            svg == expected,
            "rendering changed; if on purpose, run again with EASEL_UPDATE_GOLDEN=1 and review the diff")
    }

    /// The fixture's texts are written whole, as every text was before
    /// texts merged characters: they render as the golden file says, and a
    /// character typed and deleted again upgrades each one to characters
    /// that render exactly as the string did.
    @Test func textsFromTheLastWriterWinsFormatRenderTheSameBeforeAndAfterTheyUpgradeOnEdit() throws {
        let document = try Self.fixture()
        let texts = document.zOrder.filter { document.kind(of: $0) == .text }
        try #require(texts.count >= 3)
        #expect(texts.allSatisfy { document.textSequence(of: $0) == nil }, "written whole, never edited by character")
        var editor = Editor(replica: ReplicaID(rawValue: 0xF2), document: document)
        for text in texts {
            _ = try editor.perform(.replaceText(text, range: 0..<0, with: ["x"]))
            _ = try editor.perform(.replaceText(text, range: 0..<1, with: []))
        }
        #expect(texts.allSatisfy { editor.document.textSequence(of: $0) != nil }, "upgraded by the edit")
        #expect(SVGRenderer().render(editor.document) == SVGRenderer().render(document))
    }

    @Test func renderingTwiceGivesIdenticalBytes() throws {
        let document = try Self.fixture()
        #expect(Array(SVGRenderer().render(document).utf8) == Array(SVGRenderer().render(document).utf8))
    }

    @Test func theSameStateFromOpsInAnotherOrderRendersTheSameBytes() throws {
        let document = try Self.fixture()
        var random = SeededRandom(seed: 11)
        for _ in 0..<5 {
            var rebuilt = Document()
            for op in document.snapshotOps.shuffled(using: &random) { rebuilt.apply(op) }
            #expect(SVGRenderer().render(rebuilt) == SVGRenderer().render(document))
        }
    }

    @Test func everyEntityKindShapeTextStyleAndToolAppears() throws {
        let svg = SVGRenderer().render(try Self.fixture())
        for kind in ["emoji", "shape", "text", "stroke", "image"] { #expect(svg.contains("class=\"\(kind)\"")) }
        for element in ["<rect", "<ellipse", "<polygon", "<path", "<image", "<tspan"] {
            #expect(svg.contains(element), "\(element)")
        }
        #expect(
            svg.contains("text-anchor=\"start\"") && svg.contains("text-anchor=\"middle\"")
                && svg.contains("text-anchor=\"end\""))
        #expect(svg.contains("paint-order=\"stroke\""), "outlined text")
        #expect(svg.contains("Framed &amp; &lt;right&gt;"), "text is escaped")
        #expect(svg.contains("filter=\"url(#neon)\"") && svg.contains("<filter id=\"neon\""))
        #expect(svg.contains("rotate(28.65)") && svg.contains("scale(1.5)"))
    }

    @Test func entitiesAreDrawnBottomOfTheZOrderFirst() throws {
        let document = try Self.fixture()
        let svg = SVGRenderer().render(document)
        let order = document.zOrder.map { "data-id=\"\($0)\"" }
        let offsets = order.compactMap { svg.range(of: $0)?.lowerBound }
        #expect(offsets.count == order.count)
        #expect(offsets == offsets.sorted())
    }

    @Test func anEmptyDocumentIsABlankCanvas() {
        let svg = SVGRenderer().render(Document())
        #expect(svg.contains("viewBox=\"0 0 1000 800\""))
        #expect(!svg.contains("<g "))
    }
}
