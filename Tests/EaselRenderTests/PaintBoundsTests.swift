@testable import EaselModel
import EaselRender
import EaselTestSupport
import Testing

/// A tiled canvas redraws an entity's paint bounds when it changes: paint
/// outside them would be left behind, stale, on the tiles.
@Suite("Paint bounds")
struct PaintBoundsTests {
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func randomTransform(_ random: inout Seeded) -> Transform {
        Transform(
            x: Float.random(in: -5_000...5_000, using: &random), y: Float.random(in: -5_000...5_000, using: &random),
            scale: Float.random(in: 0.2...4, using: &random), rotation: Float.random(in: -3.2...3.2, using: &random))
    }

    func contains(_ bounds: Rect, _ point: Point) -> Bool {
        // Float rounding of the two mappings: a hundredth of a unit.
        point.x >= bounds.minX - 0.01 && point.x <= bounds.maxX + 0.01 && point.y >= bounds.minY - 0.01
            && point.y <= bounds.maxY + 0.01
    }

    @Test func everyPointOfAStrokesInkLiesInsideItsPaintBoundsForEveryToolScaleAndTurn() {
        var random = Seeded(state: 32)
        let tools: [StrokeTool] = [.pen, .brush, .marker, .neon, .pencil]
        for round in 0..<300 {
            var samples: [StrokeSample] = []
            var at = Point(x: 0, y: 0)
            for step in 0..<Int.random(in: 1...80, using: &random) {
                at = Point(
                    x: at.x + Float.random(in: -12...12, using: &random), y: at.y + Float.random(in: -12...12, using: &random))
                samples.append(StrokeSample(x: at.x, y: at.y, time: Float(step) / 120))
            }
            let tool = tools[round % tools.count]
            let stroke = StrokeContent(tool: tool, endCap: round % 7 == 0 ? .arrow : .round, samples: samples)
            let entity = Entity(
                preview: EntityID(OpID(counter: UInt64(round + 1), replica: ReplicaID(rawValue: 1))),
                transform: randomTransform(&random),
                style: Style(weight: Float.random(in: 1...48, using: &random)), content: .stroke(stroke))
            let geometry = EntityGeometry(entity)
            let bounds = SVGRenderer.paintBounds(of: entity)
            var ink: [Point] = []
            for piece in InkOutline(stroke, weight: entity.style.weight).pieces {
                switch piece {
                case .dot(let center, let radius):
                    ink += [-1, 1].flatMap { dx in [-1, 1].map { dy in Point(x: center.x + dx * radius, y: center.y + dy * radius) } }
                case .run(let run):
                    ink += run.left + run.right
                    for (end, radius) in [(run.start, run.startRadius), (run.end, run.endRadius)] {
                        ink += [-1, 1].flatMap { dx in [-1, 1].map { dy in Point(x: end.x + dx * radius, y: end.y + dy * radius) } }
                    }
                case .arrowhead(let one, let tip, let other):
                    ink += [one, tip, other]
                }
            }
            for point in ink {
                let placed = geometry.documentPoint(fromLocal: point)
                #expect(contains(bounds, placed), "round \(round), \(tool): \(placed) outside \(bounds)")
            }
        }
    }

    @Test func aShapesOutlineAndAFramedTextsFrameLieInsideTheirPaintBounds() {
        var random = Seeded(state: 7)
        for round in 0..<200 {
            let weight = Float.random(in: 0...30, using: &random)
            let width = Float.random(in: 1...400, using: &random)
            let height = Float.random(in: 1...400, using: &random)
            let shape = Entity(
                preview: EntityID(OpID(counter: 1, replica: ReplicaID(rawValue: 1))), transform: randomTransform(&random),
                style: Style(weight: weight), content: .shape(.rectangle, width: width, height: height))
            let geometry = EntityGeometry(shape)
            let bounds = SVGRenderer.paintBounds(of: shape)
            let reach = weight / 2
            for dx: Float in [-1, 1] {
                for dy: Float in [-1, 1] {
                    let corner = Point(x: dx * (width / 2 + reach), y: dy * (height / 2 + reach))
                    #expect(contains(bounds, geometry.documentPoint(fromLocal: corner)), "round \(round)")
                }
            }
            let text = TextContent(
                string: "Hello\nthere", font: "Georgia", size: Float.random(in: 6...120, using: &random), style: .framed,
                alignment: .left)
            let framed = Entity(
                preview: EntityID(OpID(counter: 2, replica: ReplicaID(rawValue: 1))), transform: randomTransform(&random),
                style: Style(weight: weight), content: .text(text))
            let box = EntityGeometry(framed).localBox
            // The frame: a quarter of the size round the box, and its outline.
            let pad = text.size / 4 + max(1, weight) / 2
            let textBounds = SVGRenderer.paintBounds(of: framed)
            for corner in [Point(x: box.minX - pad, y: box.minY - pad), Point(x: box.maxX + pad, y: box.maxY + pad)] {
                #expect(contains(textBounds, EntityGeometry(framed).documentPoint(fromLocal: corner)), "round \(round)")
            }
        }
    }

    @Test func aLineOfWideGlyphsAlignedLeftLiesInsideItsPaintBounds() {
        // Ten CJK glyphs are about 10 em wide; the model's box gives them 6.
        let text = TextContent(string: "国国国国国国国国国国", font: "Georgia", size: 20, style: .regular, alignment: .left)
        let entity = Entity(
            preview: EntityID(OpID(counter: 1, replica: ReplicaID(rawValue: 1))), transform: Transform(),
            style: Style(), content: .text(text))
        let box = EntityGeometry(entity).localBox
        let bounds = SVGRenderer.paintBounds(of: entity)
        #expect(bounds.maxX >= box.minX + 10 * 20, "\(bounds) against \(box)")
    }
}
