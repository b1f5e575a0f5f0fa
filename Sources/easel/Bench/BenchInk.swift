import ArgumentParser
import EaselModel
import EaselRender
import Foundation

/// Ink: outlines per sample natively and in the WebAssembly module (under
/// Node), and rendering a document of many strokes to SVG, with medians.
struct BenchInk: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ink",
        abstract: "Time stroke outlines natively and in the WebAssembly module, and rendering many strokes to SVG.",
        discussion: """
            The strokes are scripted hands (curves, zigzags, loops) sampled at 120 Hz. Needs Node and the module \
            Web/build.sh makes for the WebAssembly side. Build this command with -c release.
            """
    )

    @Option(help: "Strokes to outline, and in the document to render.") var strokes = 1000
    @Option(help: "Runs of each side; medians are reported.") var runs = 5
    @Option(help: "The WebAssembly module.") var module = ".build-wasm/easel.wasm"
    @Option(help: "The Node script that times the module.") var script = "Web/bench/ink.mjs"

    func run() throws {
        let workload = Self.strokes(count: strokes)
        let samples = workload.reduce(0) { $0 + $1.samples.count }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("easel-ink-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(Self.file(workload)).write(to: file)
        var native: [Double] = []
        var wasm: [Double] = []
        var render: [Double] = []
        let document = Self.document(workload)
        var svgBytes = 0
        for run in 1...runs {
            let start = DispatchTime.now().uptimeNanoseconds
            var pieces = 0
            for stroke in workload {
                pieces += InkOutline(InkLine(samples: stroke.samples, tool: stroke.tool, weight: 4), weight: 4).pieces.count
            }
            native.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            precondition(pieces > 0)
            let result = try runPeer(["node", script, file.path, module], name: "the module under Node")
            guard let seconds = result["seconds"] as? Double else {
                throw ValidationError("the module gave no seconds: \(result)")
            }
            wasm.append(seconds)
            let renderStart = DispatchTime.now().uptimeNanoseconds
            svgBytes = SVGRenderer().render(document).utf8.count
            render.append(Double(DispatchTime.now().uptimeNanoseconds - renderStart) / 1e9)
            print("run \(run)/\(runs) done")
        }
        let count = Double(samples)
        print("ink outlines, \(workload.count) strokes, \(samples) samples at 120 Hz, median of \(runs):")
        print(String(format: "  native Swift        %6.2f µs a sample", median(native) / count * 1e6))
        print(String(format: "  wasm in Node        %6.2f µs a sample", median(wasm) / count * 1e6))
        print(String(format: "ratio wasm / native: %.2fx the time", median(wasm) / median(native)))
        print(
            String(
                format: "render %d strokes to SVG: %.1f ms (%d bytes)", workload.count, median(render) * 1e3, svgBytes))
    }

    struct Stroke {
        var tool: StrokeTool
        var samples: [StrokeSample]
    }

    /// Waves, zigzags and loops of a few hundred units, at 120 Hz and
    /// speeds from slow to a flick, with pressure, every tool in turn.
    static func strokes(count: Int) -> [Stroke] {
        let tools: [StrokeTool] = [.pen, .brush, .marker, .neon, .pencil]
        return (0..<count).map { index in
            let kind = index % 3
            let points: [Point] = (0...120).map { step in
                let t = Double(step) / 120
                switch kind {
                case 0: return Point(x: Float(300 * t), y: Float(40 * sin(2 * .pi * 2 * t)))
                case 1: return Point(x: Float(300 * t), y: step % 20 < 10 ? Float(step % 10) * 6 : Float(10 - step % 10) * 6)
                default:
                    return Point(x: Float(250 * t - 20 * sin(2 * .pi * 4 * t)), y: Float(20 * cos(2 * .pi * 4 * t)))
                }
            }
            let speed = Float([150, 400, 1200][index % 3 == kind ? (index / 3) % 3 : 0])
            return Stroke(
                tool: tools[index % tools.count],
                samples: InkMotion.samples(through: points, speed: speed, rate: 120, pressure: 0.6))
        }
    }

    /// The strokes for Web/bench/ink.mjs: per stroke its tool byte, its
    /// sample count (32 bits) and its samples as binary32 quadruples.
    static func file(_ strokes: [Stroke]) -> [UInt8] {
        var bytes: [UInt8] = []
        for stroke in strokes {
            bytes.append(stroke.tool.rawValue)
            withUnsafeBytes(of: UInt32(stroke.samples.count).littleEndian) { bytes += $0 }
            for sample in stroke.samples {
                for value in [sample.x, sample.y, sample.time, sample.force ?? -1] {
                    withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
                }
            }
        }
        return bytes
    }

    /// The strokes laid out on a grid, as one document.
    static func document(_ strokes: [Stroke]) -> Document {
        var editor = Editor(replica: ReplicaID(rawValue: 0x1C))
        for (index, stroke) in strokes.enumerated() {
            let origin = Point(x: Float(index % 20) * 320, y: Float(index / 20) * 120)
            _ = try? editor.perform(.setDrawing(DrawingSettings(tool: stroke.tool, weight: stroke.tool.ink.defaultWeight)))
            guard let first = stroke.samples.first else { continue }
            let points = stroke.samples.map {
                DrawPoint(location: Point(x: origin.x + $0.x, y: origin.y + $0.y), time: $0.time, force: $0.force)
            }
            _ = try? editor.send(.drawBegan(points[0]))
            _ = try? editor.send(.drawMoved(Array(points.dropFirst())))
            _ = try? editor.send(.drawEnded)
            _ = first
        }
        return editor.document
    }
}
