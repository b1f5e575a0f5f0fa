import EaselModel
import EaselTestSupport
import Foundation
import Testing

/// The outline's promises, over the corpus of real-looking strokes at the
/// three usual device rates, clean and with digitizer noise, for every tool.
@Suite("Ink outline")
struct InkOutlineTests {
    static let drawingTools: [StrokeTool] = [.pen, .brush, .marker, .neon, .pencil]

    static func cases() -> [(name: String, samples: [StrokeSample])] {
        var cases: [(String, [StrokeSample])] = []
        for stroke in InkCorpus.strokes {
            for rate in InkCorpus.rates {
                cases.append(("\(stroke.name) at \(rate) Hz", stroke.samples(rate: rate)))
                cases.append(("\(stroke.name) at \(rate) Hz, noisy", stroke.samples(rate: rate, noise: 0.8, seed: 7)))
            }
        }
        return cases
    }

    @Test("no piece of any outline crosses itself, and every piece winds the same way")
    func piecesAreSimpleAndWoundAlike() {
        for (name, samples) in Self.cases() {
            for tool in Self.drawingTools {
                for weight in [tool.ink.weights.lowerBound, tool.ink.defaultWeight, tool.ink.weights.upperBound] {
                    let outline = InkOutline(
                        InkLine(samples: samples, tool: tool, weight: weight), endCap: .arrow, weight: weight)
                    #expect(!outline.pieces.isEmpty, "\(name), \(tool)")
                    for (index, piece) in outline.pieces.enumerated() {
                        let polygon = OutlineGeometry.polygon(piece)
                        let crossing = OutlineGeometry.crossing(polygon)
                        #expect(crossing == nil, "\(name), \(tool) \(weight): piece \(index) crosses itself at \(crossing.map { "\($0)" } ?? "")")
                        #expect(OutlineGeometry.signedArea(polygon) < 0, "\(name), \(tool) \(weight): piece \(index) winds the other way")
                    }
                }
            }
        }
    }

    /// What is compared is what is drawn: each rate's outline pieces filled
    /// together, and the edge of that ink (see `OutlineGeometry.Filled`),
    /// on the clean corpus.
    @Test(
        "every tool's drawn outline of one motion sampled at 60, 120 and 240 Hz agrees within half a unit, at its lowest, starting and highest weight",
        arguments: Self.drawingTools)
    func samplingRatesAgree(tool: StrokeTool) {
        var worst = (distance: 0.0, case: "")
        for weight in [tool.ink.weights.lowerBound, tool.ink.defaultWeight, tool.ink.weights.upperBound] {
            for stroke in InkCorpus.strokes {
                let filled = InkCorpus.rates.map { rate in
                    OutlineGeometry.Filled(
                        InkOutline(InkLine(samples: stroke.samples(rate: rate), tool: tool, weight: weight), weight: weight))
                }
                for (a, b) in [(0, 1), (1, 2), (0, 2)] {
                    let distance = OutlineGeometry.Filled.farthest(filled[a], filled[b])
                    let name = "\(stroke.name), \(tool) \(weight): \(InkCorpus.rates[a]) vs \(InkCorpus.rates[b]) Hz"
                    if distance > worst.distance { worst = (distance, name) }
                    #expect(distance <= 0.5, "\(name) differ by \(distance)")
                }
            }
        }
        if environment("EASEL_INK_FIGURES") == "1" { print("\(worst.case) differ by \(worst.distance), the most") }
    }

    @Test(
        "adding a sample changes only the last settled distance of the line and its outline, at 60, 120 and 240 Hz",
        arguments: Self.drawingTools)
    func addingASampleChangesOnlyTheEnd(tool: StrokeTool) {
        for stroke in InkCorpus.strokes {
            for rate in InkCorpus.rates {
                let samples = stroke.samples(rate: rate, noise: 0.5, seed: 3)
                let weight = tool.ink.defaultWeight
                let settled = InkLine.settledDistance(tool.ink, weight: weight)
                var before = InkLine(samples: Array(samples.prefix(2)), tool: tool, weight: weight)
                var beforeOutline = InkOutline(before, weight: weight)
                for count in 3...samples.count {
                    let after = InkLine(samples: Array(samples.prefix(count)), tool: tool, weight: weight)
                    let afterOutline = InkOutline(after, weight: weight)
                    let frontier = before.length - settled
                    for (index, vertex) in before.vertices.enumerated() where vertex.distance < frontier {
                        guard index < after.vertices.count, after.vertices[index] == vertex else {
                            Issue.record("\(stroke.name) at \(rate) Hz, \(tool): vertex \(index) at \(vertex.distance) of \(before.length) changed when sample \(count) came")
                            return
                        }
                    }
                    for (index, piece) in beforeOutline.pieces.enumerated() {
                        guard case .run(let run) = piece,
                            let end = before.vertices.first(where: { $0.point == run.end }), end.distance < frontier
                        else { continue }
                        guard index < afterOutline.pieces.count, afterOutline.pieces[index] == piece else {
                            Issue.record("\(stroke.name) at \(rate) Hz, \(tool): piece \(index) ending at \(end.distance) of \(before.length) changed when sample \(count) came")
                            return
                        }
                    }
                    before = after
                    beforeOutline = afterOutline
                }
            }
        }
    }
}
