import EaselBot
import EaselBotScript
import EaselModel
import EaselProtocol
import EaselRender
import EaselSync
import EaselTestSupport
import Foundation
import Testing

@Suite struct ExampleScriptTests {
    static let folder = packageRoot.appendingPathComponent("examples/bots")

    @Test func everyExampleScriptParsesAndRunsToItsEndWithItsAssertionsPassing() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter {
            $0.hasSuffix(".easel")
        }
        #expect(!names.isEmpty)
        for name in names { _ = try Self.run(name) }
    }

    /// Every tool, eraser and shape in one picture: the drawing example
    /// renders to `examples/bots/drawing.svg` (`EASEL_UPDATE_GOLDEN=1`
    /// rewrites it; review the picture).
    @Test("the drawing example uses every tool, eraser mode and shape, and renders to its golden SVG")
    func theDrawingExampleRendersToItsGoldenSVG() throws {
        let document = try Self.run("drawing.easel")
        let script = try ScriptParser.parse(
            try String(contentsOf: Self.folder.appendingPathComponent("drawing.easel"), encoding: .utf8))
        let modes = script.statements.compactMap { statement -> EraseMode? in
            if case .erase(let mode, _, _, _) = statement.action { mode } else { nil }
        }
        #expect(Set(modes) == Set(EraseMode.allCases))
        // The object eraser is the script's only way to delete: it must have.
        #expect(document.knownEntities.contains { document.isDeleted($0) }, "the object eraser deleted nothing")
        let svg = SVGRenderer().render(document)
        let golden = Self.folder.appendingPathComponent("drawing.svg")
        if environment("EASEL_UPDATE_GOLDEN") == "1" { try svg.write(to: golden, atomically: true, encoding: .utf8) }
        #expect(svg == (try String(contentsOf: golden, encoding: .utf8)), "rendering changed; review and update")
        let strokes = document.entities.compactMap { entity -> StrokeContent? in
            if case .stroke(let stroke) = entity.content { stroke } else { nil }
        }
        #expect(Set(strokes.map(\.tool)) == Set(StrokeTool.allCases))
        #expect(strokes.contains { $0.endCap == .arrow })
        let shapes = document.entities.compactMap { entity -> ShapeKind? in
            if case .shape(let kind, _, _) = entity.content { kind } else { nil }
        }
        #expect(Set(shapes) == Set(ShapeKind.allCases))
        for piece in ["<filter id=\"grain\"", "<filter id=\"blur\"", "<mask id=\"holes-", "<mask id=\"blurs-"] {
            #expect(svg.contains(piece), "\(piece)")
        }
    }

    /// Runs an example script to its end; the bot's document.
    static func run(_ name: String) throws -> Document {
        let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        var run = ScriptRun(try ScriptParser.parse(text))
        var client = SyncClient(
            document: try DocumentName("examples/\(name.dropLast(6))"),
            user: UserInfo(name: "bot", initials: "B", color: .black), replica: ReplicaID(rawValue: 0xE1),
            at: Timestamp(milliseconds: 0))
        var now = Timestamp(milliseconds: 0)
        running: while true {
            switch try run.advance(&client, at: now) {
            case .wait(let until): now = until
            case .offline: continue
            case .image: continue  // uploads need a server: the fleet's tests run them
            case .finished: break running
            }
        }
        #expect(run.isFinished, "\(name)")
        return client.editor.document
    }
}
