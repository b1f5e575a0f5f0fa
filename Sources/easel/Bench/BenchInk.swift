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
    @Option(help: "The Node script that times a live stroke in the module as the page draws it.")
    var liveScript = "Web/bench/live-stroke.mjs"

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
                pieces +=
                    InkOutline(InkLine(samples: stroke.samples, tool: stroke.tool, weight: 4), weight: 4).pieces.count
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
        try benchLiveStrokes(workload)
    }

    /// A live stroke is drawn again at every sample: its fragment grown
    /// (`GrowingInk`) against drawn whole, natively, on the first 100
    /// strokes and on one long stroke; then the module under Node, driven
    /// as the page drives it.
    func benchLiveStrokes(_ workload: [Stroke]) throws {
        let renderer = SVGRenderer()
        func entity(_ stroke: Stroke, _ count: Int) -> Entity {
            Entity(
                preview: EntityID(OpID(counter: 1, replica: ReplicaID(rawValue: 0x1C))), transform: Transform(),
                style: Style(color: .black, weight: 4),
                content: .stroke(
                    StrokeContent(tool: stroke.tool, endCap: .round, samples: Array(stroke.samples.prefix(count)))))
        }
        /// Seconds per sample drawing `strokes` again at every sample from
        /// sample `from` on, grown and whole.
        func time(_ strokes: [Stroke], from: Int) -> (grown: Double, whole: Double) {
            var grown: [Double] = []
            var whole: [Double] = []
            var samples = 0
            for stroke in strokes { samples += max(stroke.samples.count - max(from, 1), 0) }
            for _ in 0..<runs {
                var bytes = 0
                var spent: UInt64 = 0
                for stroke in strokes {
                    // Grown untimed up to `from`, as it was while drawn.
                    var growing = GrowingInk()
                    for count in 1...max(from, 1) where count <= stroke.samples.count {
                        _ = renderer.fragment(of: entity(stroke, count), layers: .none, growing: &growing)
                    }
                    let start = DispatchTime.now().uptimeNanoseconds
                    for count in (max(from, 1) + 1)..<(stroke.samples.count + 1) {
                        bytes +=
                            renderer.fragment(of: entity(stroke, count), layers: .none, growing: &growing).utf8.count
                    }
                    spent += DispatchTime.now().uptimeNanoseconds - start
                }
                grown.append(Double(spent) / 1e9)
                let start = DispatchTime.now().uptimeNanoseconds
                for stroke in strokes {
                    for count in (max(from, 1) + 1)..<(stroke.samples.count + 1) {
                        bytes -= renderer.fragment(of: entity(stroke, count)).utf8.count
                    }
                }
                whole.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                precondition(bytes == 0, "grown and whole fragments differ")
            }
            return (median(grown) / Double(samples), median(whole) / Double(samples))
        }
        let first = Array(workload.prefix(100))
        let short = time(first, from: 0)
        print(
            String(
                format: "a live stroke's fragment, drawn again at every sample (the first %d strokes), per sample:",
                first.count))
        print(String(format: "  grown               %6.2f µs", short.grown * 1e6))
        print(String(format: "  drawn whole         %6.2f µs", short.whole * 1e6))
        // One long stroke: the workload's first, carried on to 3,200 samples.
        guard let seed = workload.first else { return }
        var long = seed
        while long.samples.count < 3_200 {
            let offset = (long.samples.last?.x ?? 0) + 2
            let time = (long.samples.last?.time ?? 0) + 1 / 120
            long.samples += seed.samples.map {
                StrokeSample(x: $0.x + offset, y: $0.y, time: $0.time + time, force: $0.force)
            }
        }
        long.samples = Array(long.samples.prefix(3_200))
        let end = time([long], from: 3_000)
        print("… on one stroke of 3,200 samples, per sample over its last 200:")
        print(String(format: "  grown               %6.2f µs", end.grown * 1e6))
        print(String(format: "  drawn whole         %6.2f µs", end.whole * 1e6))
        let live = try runPeer(["node", liveScript, module, "3200", String(runs)], name: "the module under Node")
        guard let windows = live["windows"] as? [[String: Any]] else {
            throw ValidationError("the live stroke script gave no windows: \(live)")
        }
        print("a live stroke in the module under Node, as the page draws it (gesture, render), per sample:")
        for window in windows {
            guard let from = window["from"] as? Int, let to = window["to"] as? Int,
                let microseconds = window["microseconds"] as? Double
            else { continue }
            print(String(format: "  samples %5d–%-5d  %6.2f µs", from, to, microseconds))
        }
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
                case 1:
                    return Point(
                        x: Float(300 * t), y: step % 20 < 10 ? Float(step % 10) * 6 : Float(10 - step % 10) * 6)
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
            _ = try? editor.perform(
                .setDrawing(DrawingSettings(tool: stroke.tool, weight: stroke.tool.ink.defaultWeight)))
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
