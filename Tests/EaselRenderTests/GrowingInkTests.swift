import EaselModel
import EaselRender
import EaselTestSupport
import Testing

/// A live canvas draws a growing stroke again at every sample; `GrowingInk`
/// extends it instead, and must draw exactly what a fresh render draws.
@Suite("Growing ink")
struct GrowingInkTests {
    static func stroke(_ id: UInt64, _ tool: StrokeTool, _ endCap: EndCap, _ samples: [StrokeSample], weight: Float)
        -> Entity
    {
        Entity(
            preview: EntityID(OpID(counter: id, replica: ReplicaID(rawValue: 7))), transform: Transform(x: 10, y: 20),
            style: Style(color: .black, weight: weight),
            content: .stroke(StrokeContent(tool: tool, endCap: endCap, samples: samples)))
    }

    @Test(
        "a stroke drawn again as it grows, sample by sample or a few at a time, is the fragment a fresh render writes, for every tool")
    func growingStrokesMatchAFreshRender() {
        let renderer = SVGRenderer()
        let tools: [StrokeTool] = [.pen, .brush, .marker, .neon, .pencil, .eraser, .blur]
        for (index, tool) in tools.enumerated() {
            let samples = InkCorpus.strokes[index % InkCorpus.strokes.count].samples(rate: 120, noise: 0.5, seed: 5)
            var growing = GrowingInk()
            var count = 0
            var step = 0
            while count < samples.count {
                step += 1
                count = min(count + (step % 4 == 0 ? 5 : 1), samples.count)
                let entity = Self.stroke(1, tool, index % 2 == 0 ? .arrow : .round, Array(samples.prefix(count)), weight: 6)
                let grown = renderer.fragment(of: entity, layers: .none, growing: &growing)
                guard grown == renderer.fragment(of: entity) else {
                    Issue.record("\(tool): the grown fragment differs at \(count) samples")
                    break
                }
            }
        }
    }

    @Test(
        "a stroke whose samples, tool or weight change otherwise than by growing, and strokes drawn in turn past the capacity, are drawn afresh"
    )
    func otherChangesAreDrawnAfresh() {
        let renderer = SVGRenderer()
        var growing = GrowingInk()
        let samples = InkCorpus.strokes[0].samples(rate: 120)
        func check(_ entity: Entity, _ what: String) {
            #expect(
                renderer.fragment(of: entity, layers: .none, growing: &growing) == renderer.fragment(of: entity), "\(what)")
        }
        check(Self.stroke(1, .pen, .round, Array(samples.prefix(60)), weight: 4), "the first drawing")
        var changed = Array(samples.prefix(80))
        changed[10].x += 5
        check(Self.stroke(1, .pen, .round, changed, weight: 4), "a sample moved")
        check(Self.stroke(1, .pen, .round, Array(changed.prefix(40)), weight: 4), "samples taken away")
        check(Self.stroke(1, .brush, .round, Array(changed.prefix(90)), weight: 4), "another tool")
        check(Self.stroke(1, .brush, .arrow, Array(changed.prefix(90)), weight: 4), "another end cap")
        check(Self.stroke(1, .brush, .arrow, Array(changed.prefix(95)), weight: 9), "another weight")
        for other in 2...UInt64(GrowingInk.capacity + 3) {
            check(Self.stroke(other, .pen, .round, Array(samples.prefix(Int(other) * 3)), weight: 4), "stroke \(other)")
        }
        check(Self.stroke(1, .brush, .arrow, Array(changed.prefix(99)), weight: 9), "the first again, grown, after others")
    }
}
