import EaselModel
import EaselTestSupport
import Foundation
import Testing

/// The outlines of fixed samples, bit for bit, in
/// `Web/tests/fixtures/ink.json`: native Swift checks them here, and the
/// WebAssembly module's Node test (`Web/tests/ink.test.mjs`) checks the
/// same file, so both builds are held to the same bits.
/// `EASEL_WRITE_VECTORS=1 swift test --filter InkGolden` rewrites it.
@Suite("Ink golden outlines")
struct InkGoldenTests {
    static let file = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Web/tests/fixtures/ink.json")

    struct Stroke {
        var name: String
        var tool: StrokeTool
        var weight: Float
        var endCap: EndCap
        var samples: [StrokeSample]

        var outline: InkOutline {
            InkOutline(InkLine(samples: samples, tool: tool, weight: weight), endCap: endCap, weight: weight)
        }
    }

    /// Every corpus stroke at 60 Hz with noise, each with a tool in turn,
    /// and a tap.
    static func strokes() -> [Stroke] {
        let tools: [StrokeTool] = [.pen, .brush, .marker, .neon, .pencil]
        var strokes = InkCorpus.strokes.enumerated().map { index, stroke in
            let tool = tools[index % tools.count]
            return Stroke(
                name: stroke.name, tool: tool, weight: tool.ink.defaultWeight, endCap: index == 4 ? .arrow : .round,
                samples: stroke.samples(rate: 60, noise: 0.5, seed: UInt64(index + 1)))
        }
        strokes.append(
            Stroke(
                name: "tap", tool: .pen, weight: 5, endCap: .round,
                samples: [StrokeSample(x: 0, y: 0, time: 0, force: 0.8), StrokeSample(x: 0.25, y: 0.1, time: 0.02)]))
        return strokes
    }

    /// A sample as four little-endian binary32 numbers: x, y, time, force
    /// (−1 for none).
    static func sampleBytes(_ samples: [StrokeSample]) -> [UInt8] {
        var bytes: [UInt8] = []
        for sample in samples {
            for value in [sample.x, sample.y, sample.time, sample.force ?? -1] {
                withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
            }
        }
        return bytes
    }

    static func samples(from bytes: [UInt8]) -> [StrokeSample] {
        stride(from: 0, to: bytes.count - 15, by: 16).map { start in
            let values = (0..<4).map { field in
                Float(
                    bitPattern: (0..<4).reduce(UInt32(0)) {
                        $0 | UInt32(bytes[start + field * 4 + $1]) << (8 * UInt32($1))
                    })
            }
            return StrokeSample(x: values[0], y: values[1], time: values[2], force: values[3] < 0 ? nil : values[3])
        }
    }

    static func write() throws {
        let entries = strokes().map { stroke -> [String: Any] in
            [
                "name": stroke.name, "tool": Int(stroke.tool.rawValue), "weight": Double(stroke.weight),
                "endCap": Int(stroke.endCap.rawValue), "samples": hex(sampleBytes(stroke.samples)),
                "outline": hex(stroke.outline.encoded),
            ]
        }
        let object: [String: Any] = [
            "about": "Ink outlines of fixed samples, bit for bit (InkGoldenTests.swift, ink.test.mjs).",
            "strokes": entries,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        try (data + Data("\n".utf8)).write(to: file)
    }

    @Test("the outline of a fixed set of samples is the golden file's, bit for bit")
    func outlinesMatchTheGoldenFile() throws {
        if environment("EASEL_WRITE_VECTORS") == "1" { try Self.write() }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.file)) as? [String: Any]
        let entries = try #require(object?["strokes"] as? [[String: Any]])
        #expect(entries.count == Self.strokes().count)
        for entry in entries {
            let name = entry["name"] as? String ?? "?"
            let tool = try #require(StrokeTool(rawValue: UInt8(entry["tool"] as? Int ?? -1)), "\(name)")
            let endCap = try #require(EndCap(rawValue: UInt8(entry["endCap"] as? Int ?? -1)), "\(name)")
            let weight = Float(try #require(entry["weight"] as? Double))
            let samples = Self.samples(from: bytes(hex: try #require(entry["samples"] as? String)))
            let outline = InkOutline(InkLine(samples: samples, tool: tool, weight: weight), endCap: endCap, weight: weight)
            #expect(hex(outline.encoded) == entry["outline"] as? String, "\(name)")
        }
    }
}
