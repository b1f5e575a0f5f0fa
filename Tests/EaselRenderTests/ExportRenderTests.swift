import EaselModel
import EaselRender
import EaselTestSupport
import Testing

/// What the page's export asks of the renderer: the selection alone, with
/// the erasers that cut it, in a frame of its own; and no background.
@Suite("Rendering for export: the selection alone, without the background")
struct ExportRenderTests {
    static func document() throws -> (Document, star: EntityID, fox: EntityID) {
        var editor = Editor(replica: ReplicaID(rawValue: 0xE1))
        let star = try #require(try editor.perform(.place(.emoji("⭐️", size: 40), at: Point(x: 100, y: 100))).first).entity
        let fox = try #require(try editor.perform(.place(.emoji("🦊", size: 40), at: Point(x: 600, y: 400))).first).entity
        try editor.perform(.setBackground(.color(Color(rawValue: 0xF0E6_C8FF))))
        // A pixel eraser across the star.
        try editor.perform(.setDrawing(DrawingSettings(tool: .eraser, weight: 10)))
        try editor.send(.drawBegan(DrawPoint(location: Point(x: 80, y: 100), time: 0)))
        try editor.send(.drawMoved([DrawPoint(location: Point(x: 120, y: 100), time: 0.1)]))
        try editor.send(.drawEnded)
        return (editor.document, star, fox)
    }

    @Test("the selection renders alone, with the eraser that cut it, in a frame around it")
    func theSelectionRendersAloneWithItsEraser() throws {
        let (document, star, fox) = try Self.document()
        var options = SVGRenderer.Options()
        options.only = [star]
        let part = SVGRenderer(options: options).render(document)
        let whole = SVGRenderer().render(document)
        #expect(part.contains("data-id=\"\(star)\"") && !part.contains("data-id=\"\(fox)\""))
        #expect(part.contains("<mask id=\"holes-"), "the star keeps its hole")
        #expect(try #require(Self.width(of: part)) < (try #require(Self.width(of: whole))), "a frame of its own")
    }

    /// The width the SVG element gives itself.
    static func width(of svg: String) -> Float? {
        guard let start = svg.firstRange(of: "width=\"") else { return nil }
        return Float(svg[start.upperBound...].prefix { $0 != "\"" })
    }

    @Test("without the background neither its colour nor its rectangle is drawn")
    func noBackgroundDrawsNone() throws {
        let (document, _, _) = try Self.document()
        var options = SVGRenderer.Options()
        options.drawsBackground = false
        let svg = SVGRenderer(options: options).render(document)
        #expect(!svg.contains("#f0e6c8") && SVGRenderer().render(document).contains("#f0e6c8"))
    }
}
