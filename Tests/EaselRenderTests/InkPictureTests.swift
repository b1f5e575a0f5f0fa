import EaselModel
import EaselTestSupport
import Foundation
import Testing

@testable import EaselRender

/// The pictures Docs/drawing.md shows, drawn by the renderer from the same
/// samples: a test keeps them what the code draws
/// (`EASEL_UPDATE_GOLDEN=1` rewrites them).
@Suite("Ink pictures for the docs")
struct InkPictureTests {
    static let folder = packageRoot.appendingPathComponent("Docs/images")

    /// A wavy line with digitizer noise, as one hand would draw it: the
    /// same path at every pace.
    static let path: [Point] = (0...240).map { step in
        let t = Double(step) / 240
        return Point(x: Float(200 * t), y: Float(22 * sin(2 * .pi * 1.5 * t) + 10 * t))
    }

    static func samples(speed: Float, pressure: Bool) -> [StrokeSample] {
        let ramp: @Sendable (Float) -> Float = { 0.05 + 0.95 * $0 }
        let stroke = InkCorpusStroke(
            name: "wave", points: path, speed: speed, pace: .steady, pressure: pressure ? ramp : nil)
        return stroke.samples(rate: 120, noise: 0.6, seed: 4)
    }

    static func picture() -> String {
        let columns: [(String, Float, Bool)] = [
            ("slow (150/s)", 150, false), ("fast (1500/s)", 1500, false), ("slow, pressure 0 → 1", 150, true),
        ]
        let tools: [StrokeTool] = [.pen, .brush, .marker, .neon, .pencil]
        let cell = (width: Float(250), height: Float(90))
        let width = cell.width * Float(columns.count + 1) + 20
        let height = cell.height * Float(tools.count) + 40
        let renderer = SVGRenderer()
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(SVGNumber.format(width)) \(SVGNumber.format(height))" \
            width="\(SVGNumber.format(width))" height="\(SVGNumber.format(height))">
            <defs>
            \(SVGRenderer.filters(for: Set(tools)))</defs>
            <rect width="100%" height="100%" fill="#ffffff"/>
            <g font-family="sans-serif" font-size="13" fill="#555555">
            <text x="20" y="22">raw samples</text>

            """
        for (index, column) in columns.enumerated() {
            svg += "<text x=\"\(SVGNumber.format(cell.width * Float(index + 1) + 20))\" y=\"22\">\(column.0)</text>\n"
        }
        svg += "</g>\n"
        for (row, tool) in tools.enumerated() {
            let top = 40 + cell.height * Float(row) + 30
            let raw = samples(speed: 150, pressure: false)
            let points = raw.map { "\(SVGNumber.format($0.x + 20)),\(SVGNumber.format($0.y + top))" }
            svg += "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"#999999\" stroke-width=\"0.6\"/>\n"
            svg += "<text x=\"20\" y=\"\(SVGNumber.format(top + 45))\" font-family=\"sans-serif\" font-size=\"13\" fill=\"#555555\">\(tool)</text>\n"
            for (index, column) in columns.enumerated() {
                let stroke = StrokeContent(
                    tool: tool, endCap: .round, samples: samples(speed: column.1, pressure: column.2))
                let entity = Entity(
                    preview: EntityID(OpID(counter: UInt64(row * 10 + index + 1), replica: ReplicaID(rawValue: 1))),
                    transform: Transform(x: cell.width * Float(index + 1) + 20, y: top),
                    style: Style(color: Color(rawValue: 0x1F3B_73FF), weight: tool.ink.defaultWeight),
                    content: .stroke(stroke))
                svg += renderer.fragment(of: entity)
            }
        }
        return svg + "</svg>\n"
    }

    @Test("the tools picture in Docs/images is what the renderer draws of the same samples")
    func toolsPictureIsCurrent() throws {
        let file = Self.folder.appendingPathComponent("ink-tools.svg")
        let svg = Self.picture()
        if environment("EASEL_UPDATE_GOLDEN") == "1" { try svg.write(to: file, atomically: true, encoding: .utf8) }
        #expect(svg == (try String(contentsOf: file, encoding: .utf8)), "run with EASEL_UPDATE_GOLDEN=1 and review")
    }
}
