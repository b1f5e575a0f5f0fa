import EaselModel
import EaselTestSupport
import Testing

/// A live stroke grows a sample at a time: the builders keep what the new
/// samples cannot change and must give, bit for bit, what the whole
/// samples give at once.
@Suite("Ink builders")
struct InkBuilderTests {
    /// Grows a line and its outline through `chunks` of `samples`, and at
    /// every step compares them with the line and outline of all the
    /// samples so far; records the first difference. Also checks that
    /// what the builders call unchanged is.
    static func checkGrowth(
        _ samples: [StrokeSample], tool: StrokeTool, weight: Float, endCap: EndCap = .round, chunks: [Int],
        name: String
    ) {
        var line = InkLine.Builder(tool: tool, weight: weight)
        var outline = InkOutline.Builder(endCap: endCap, weight: weight)
        var count = 0
        var chunk = 0
        while count < samples.count {
            let size = min(chunks[chunk % chunks.count], samples.count - count)
            chunk += 1
            let before = line.line
            let outlineBefore = outline.outline
            line.append(contentsOf: samples[count..<(count + size)])
            count += size
            outline.update(line.line, unchangedVertices: line.unchangedVertices)
            let whole = InkLine(samples: Array(samples.prefix(count)), tool: tool, weight: weight)
            guard line.line == whole else {
                let differs = zip(line.line.vertices, whole.vertices).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                Issue.record(
                    "\(name): the grown line differs at \(count) samples (vertex \(differs.map(String.init) ?? "count"): \(line.line.vertices.count) against \(whole.vertices.count))"
                )
                return
            }
            guard line.unchangedVertices <= before.vertices.count,
                Array(before.vertices.prefix(line.unchangedVertices)) == Array(whole.vertices.prefix(line.unchangedVertices))
            else {
                Issue.record("\(name): a vertex called unchanged changed at \(count) samples")
                return
            }
            let wholeOutline = InkOutline(whole, endCap: endCap, weight: weight)
            guard outline.outline == wholeOutline else {
                Issue.record("\(name): the grown outline differs at \(count) samples")
                return
            }
            guard Array(outlineBefore.pieces.prefix(outline.unchangedPieces))
                == Array(wholeOutline.pieces.prefix(outline.unchangedPieces))
            else {
                Issue.record("\(name): a piece called unchanged changed at \(count) samples")
                return
            }
        }
    }

    @Test(
        "a line and outline grown a sample at a time are bit for bit those of all the samples: the corpus at 60, 120 and 240 Hz with noise",
        arguments: InkOutlineTests.drawingTools)
    func growingSampleBySampleMatchesTheWhole(tool: StrokeTool) {
        for stroke in InkCorpus.strokes {
            for rate in InkCorpus.rates {
                Self.checkGrowth(
                    stroke.samples(rate: rate, noise: 0.5, seed: 7), tool: tool, weight: tool.ink.defaultWeight,
                    endCap: tool == .pen ? .arrow : .round, chunks: [1], name: "\(stroke.name) at \(rate) Hz, \(tool)")
            }
        }
    }

    /// Random hands: steps of every length (jitter, curves, flicks far
    /// past the curve's reach, sharp turns, repeated points), times that
    /// stall or go back, pressure or none, and now and then a number that
    /// is not finite.
    static func randomSamples(seed: UInt64) -> [StrokeSample] {
        var random = SeededRandom(seed: seed)
        var samples: [StrokeSample] = []
        var x: Float = 0
        var y: Float = 0
        var time: Float = 0
        var heading = Float.random(in: 0..<6.28, using: &random)
        let count = Int.random(in: 1...400, using: &random)
        let pressured = Bool.random(using: &random)
        for _ in 0..<count {
            switch Int.random(in: 0..<20, using: &random) {
            case 0: heading += Float.random(in: 1.5...3, using: &random)  // a corner
            case 1: break  // the same point again
            case 2:
                x += Float.random(in: -60...60, using: &random)  // a flick
                y += Float.random(in: -60...60, using: &random)
            default:
                heading += Float.random(in: -0.3...0.3, using: &random)
                let step = Float.random(in: 0.2...6, using: &random)
                // A polynomial stands in for cos and sin: any curve will do.
                let c = 1 - heading * heading / 2
                let s = heading - heading * heading * heading / 6
                x += step * max(min(c, 1), -1)
                y += step * max(min(s, 1), -1)
                if heading > 3 || heading < -3 { heading = 0 }
            }
            time += Int.random(in: 0..<25, using: &random) == 0 ? -5 : Float.random(in: 0...12, using: &random)
            var sample = StrokeSample(
                x: x, y: y, time: time, force: pressured ? Float.random(in: 0...1, using: &random) : nil)
            if Int.random(in: 0..<150, using: &random) == 0 { sample.x = .nan }
            samples.append(sample)
        }
        return samples
    }

    @Test("a line and outline grown in chunks are bit for bit those of all the samples: 300 random hands, every tool")
    func growingRandomHandsMatchesTheWhole() {
        let tools = InkOutlineTests.drawingTools
        for seed in UInt64(1)...300 {
            var random = SeededRandom(seed: seed &* 7919)
            let tool = tools[Int(seed) % tools.count]
            let weight = Float.random(in: 1...40, using: &random)
            let chunks = (0..<5).map { _ in Int.random(in: 1...6, using: &random) }
            Self.checkGrowth(
                Self.randomSamples(seed: seed), tool: tool, weight: weight,
                endCap: seed % 3 == 0 ? .arrow : .round, chunks: chunks, name: "seed \(seed), \(tool) \(weight)")
        }
    }

    @Test("a stroke that starts as a tap and one far longer than a hand draws grow to their whole lines")
    func dotsAndHugeStrokesGrow() {
        let tap = [StrokeSample(x: 0, y: 0, time: 0, force: 0.5), StrokeSample(x: 0.4, y: 0.2, time: 8, force: 0.6)]
        let onward = (1...40).map { StrokeSample(x: Float($0) * 3, y: 0, time: 8 + Float($0) * 8, force: 0.6) }
        Self.checkGrowth(tap + onward, tool: .pen, weight: 4, chunks: [1], name: "a tap that goes on")
        let huge = onward + [StrokeSample(x: 2_000_000, y: 0, time: 400, force: nil)] + onward.map {
            StrokeSample(x: 2_000_000 + $0.x, y: $0.y, time: 400 + $0.time, force: $0.force)
        }
        Self.checkGrowth(huge, tool: .brush, weight: 8, chunks: [1, 3], name: "a stroke past the longest path")
    }

    @Test("each sample a long stroke gains recomputes only its settled distance, however long the stroke")
    func longStrokesRecomputeOnlyTheirEnd() {
        // A slow spiral with a corner every so often, 4,000 samples at 120 Hz.
        var samples: [StrokeSample] = []
        var heading: Float = 0
        var point = Point(x: 0, y: 0)
        for index in 0..<4_000 {
            heading += index % 300 == 299 ? 2 : 0.02
            if heading > 3 { heading -= 6 }
            let c = 1 - heading * heading / 2 + heading * heading * heading * heading / 24
            let s = heading - heading * heading * heading / 6
            point = point + Vector(dx: 2.5 * c, dy: 2.5 * s)
            samples.append(StrokeSample(x: point.x, y: point.y, time: Float(index) * 8.33, force: nil))
        }
        for tool in InkOutlineTests.drawingTools {
            let weight = tool.ink.defaultWeight
            var line = InkLine.Builder(tool: tool, weight: weight)
            var outline = InkOutline.Builder(endCap: .round, weight: weight)
            // The vertices within the settled distance of the end, and the
            // runs that can span them (a run holds at most 32 segments).
            let vertexBound = Int(InkLine.settledDistance(tool.ink, weight: weight) / InkLine.spacing) + 24
            let pieceBound = vertexBound + 2
            var worst = (vertices: 0, pieces: 0)
            for sample in samples {
                line.append(contentsOf: [sample])
                outline.update(line.line, unchangedVertices: line.unchangedVertices)
                worst.vertices = max(worst.vertices, line.line.vertices.count - line.unchangedVertices)
                worst.pieces = max(worst.pieces, outline.outline.pieces.count - outline.unchangedPieces)
            }
            #expect(line.line.vertices.count > 10 * vertexBound, "\(tool): the stroke is long")
            #expect(worst.vertices <= vertexBound, "\(tool): \(worst.vertices) vertices recomputed at once")
            #expect(worst.pieces <= pieceBound, "\(tool): \(worst.pieces) pieces recomputed at once")
        }
    }
}
