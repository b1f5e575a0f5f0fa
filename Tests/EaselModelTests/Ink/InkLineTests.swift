import EaselModel
import EaselTestSupport
import Foundation
import Testing

/// Smoothing and width: what a person drawing would notice.
@Suite("Ink line")
struct InkLineTests {
    /// The turning angle at each inner point of a polyline, in radians.
    static func turningAngles(_ points: [Point]) -> [Double] {
        guard points.count > 2 else { return [] }
        return (1..<(points.count - 1)).map { index in
            let a = points[index] - points[index - 1]
            let b = points[index + 1] - points[index]
            return atan2(Double(a.dx * b.dy - a.dy * b.dx), Double(a.dx * b.dx + a.dy * b.dy))
        }
    }

    static func variance(_ values: [Double]) -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        return values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)
    }

    /// The samples' polyline resampled every `InkLine.spacing` units, with
    /// no smoothing: what the ink's points would be without it.
    static func resampled(_ samples: [StrokeSample]) -> [Point] {
        var points = [Point(x: samples[0].x, y: samples[0].y)]
        var carried: Float = 0
        for index in 1..<samples.count {
            let a = Point(x: samples[index - 1].x, y: samples[index - 1].y)
            let segment = Point(x: samples[index].x, y: samples[index].y) - a
            let length = (segment.dx * segment.dx + segment.dy * segment.dy).squareRoot()
            var at = InkLine.spacing - carried
            while at <= length {
                points.append(a + segment * (at / length))
                at += InkLine.spacing
            }
            carried = length - (at - InkLine.spacing)
        }
        return points
    }

    @Test("smoothing lowers the jitter of noisy samples: the turning angle varies far less")
    func smoothingLowersJitter() {
        // Strokes whose own turning is slight or steady, so that what varies
        // is the jitter: a line, the S-curve, the circle.
        let line = InkCorpusStroke(
            name: "line", points: [Point(x: 0, y: 0), Point(x: 300, y: 100)], speed: 300, pace: .steady)
        let strokes = [line] + InkCorpus.strokes.filter { $0.name.contains("S-curve") || $0.name == "circle" }
        #expect(strokes.count == 3)
        for stroke in strokes {
            for rate in InkCorpus.rates {
                let samples = stroke.samples(rate: rate, noise: 1, seed: 5)
                let raw = Self.variance(Self.turningAngles(Self.resampled(samples)))
                let line = InkLine(samples: samples, tool: .pen, weight: 3)
                let smoothed = Self.variance(Self.turningAngles(line.vertices.map(\.point)))
                #expect(smoothed < raw / 4, "\(stroke.name) at \(rate) Hz: \(smoothed) against \(raw) unsmoothed")
            }
        }
    }

    /// Noise of ±0.3 units at every sample moves the corner sample itself
    /// and tilts the lines its tip is found from: there the bound is 1.25.
    @Test("a deliberate corner stays within half a unit of where the hand turned at every rate (1.25 with noise)")
    func cornersAreKept() {
        for stroke in InkCorpus.strokes where stroke.pace == .stopping {
            // Every inner waypoint is a turn the hand made; the zigzag's
            // points are all relative to the first, as samples are.
            let turns = stroke.points.dropFirst().dropLast().map { $0 - stroke.points[0] }
            for rate in InkCorpus.rates {
                for noise: Float in [0, 0.3] {
                    let line = InkLine(samples: stroke.samples(rate: rate, noise: noise, seed: 9), tool: .pen, weight: 3)
                    for turn in turns {
                        let nearest = line.vertices.map { vertex -> Float in
                            let offset = vertex.point - Point(x: turn.dx, y: turn.dy)
                            return (offset.dx * offset.dx + offset.dy * offset.dy).squareRoot()
                        }.min() ?? .infinity
                        #expect(
                            nearest <= (noise == 0 ? 0.5 : 1.25),
                            "\(stroke.name) at \(rate) Hz, noise \(noise): the turn at \(turn) is \(nearest) away")
                    }
                }
            }
        }
    }

    /// The radius halfway along a straight line drawn at `speed` with `pressure`.
    static func middleRadius(_ tool: StrokeTool, speed: Float, pressure: Float?) -> Float {
        let samples = InkMotion.samples(
            through: [Point(x: 0, y: 0), Point(x: 300, y: 0)], speed: speed, rate: 120, pressure: pressure)
        let line = InkLine(samples: samples, tool: tool, weight: tool.ink.defaultWeight)
        return line.vertices.min { abs($0.distance - 150) < abs($1.distance - 150) }?.radius ?? 0
    }

    @Test("for pen and brush the line thins as the hand speeds up: a flick is thinner than a slow stroke")
    func widthFallsWithSpeed() {
        for tool in [StrokeTool.pen, .brush] {
            let radii = [30, 100, 300, 1000, 3000].map { Self.middleRadius(tool, speed: $0, pressure: nil) }
            #expect(zip(radii, radii.dropFirst()).allSatisfy { $0 > $1 }, "\(tool): \(radii)")
            #expect(radii[4] < radii[0] * 0.75, "\(tool): \(radii)")
            var previous = Float.infinity
            for speed in stride(from: Float(0), through: 20_000, by: 25) {
                let factor = tool.ink.speedFactor(speed)
                #expect(factor <= previous && factor > 0, "\(tool) at \(speed)")
                previous = factor
            }
        }
    }

    @Test("for pen and brush the line thickens as the pen presses harder")
    func widthRisesWithPressure() {
        for tool in [StrokeTool.pen, .brush] {
            let radii = [0, 0.25, 0.5, 0.75, 1].map { Self.middleRadius(tool, speed: 200, pressure: $0) }
            #expect(zip(radii, radii.dropFirst()).allSatisfy { $0 < $1 }, "\(tool): \(radii)")
            var previous: Float = 0
            for pressure in stride(from: Float(0), through: 1, by: 0.01) {
                let factor = tool.ink.pressureFactor(pressure)
                #expect(factor >= previous && factor > 0, "\(tool) at \(pressure)")
                previous = factor
            }
        }
    }

    @Test("the marker keeps one width whatever the speed and pressure, ends included")
    func markerKeepsOneWidth() {
        for speed: Float in [30, 3000] {
            for pressure: Float? in [nil, 0, 1] {
                let samples = InkMotion.samples(
                    through: [Point(x: 0, y: 0), Point(x: 200, y: 40)], speed: speed, rate: 120, pressure: pressure)
                let line = InkLine(samples: samples, tool: .marker, weight: 16)
                #expect(line.vertices.allSatisfy { $0.radius == 8 }, "\(speed), \(String(describing: pressure))")
            }
        }
    }

    /// The pencil tapers too (3 × weight, from half the width); the marker
    /// and neon have no taper.
    @Test("pen, brush and pencil taper at both ends, from their taper floor up to full width; marker and neon do not taper")
    func toolsTaperAsTheirResponseSays() {
        for (tool, tapers) in [(StrokeTool.pen, true), (.brush, true), (.pencil, true), (.marker, false), (.neon, false)] {
            let response = tool.ink
            let weight = response.defaultWeight
            #expect((response.taperLength(weight: weight) > 0) == tapers, "\(tool)")
            let samples = InkMotion.samples(through: [Point(x: 0, y: 0), Point(x: 300, y: 0)], speed: 200, rate: 120)
            let line = InkLine(samples: samples, tool: tool, weight: weight)
            let middle = Self.middleRadius(tool, speed: 200, pressure: nil)
            let floor = response.taperLength(weight: weight) > 0 ? response.taperFloor : 1
            let first = line.vertices.first?.radius ?? 0
            let last = line.vertices.last?.radius ?? 0
            #expect(abs(first - floor * middle) <= middle * 0.02 && abs(last - floor * middle) <= middle * 0.02,
                "\(tool): \(first) … \(middle) … \(last), floor \(floor)")
            guard floor < 1 else { continue }
            #expect(floor <= 0.5, "\(tool): its ends at most half the width")
            let start = line.vertices.filter { $0.distance <= response.taperLength(weight: weight) }.map(\.radius)
            #expect(zip(start, start.dropFirst()).allSatisfy { $0 < $1 }, "\(tool): the width rises over the taper")
            let past = line.vertices.first { $0.distance > response.taperLength(weight: weight) + 8 }?.radius ?? 0
            #expect(abs(past - middle) <= middle * 0.02, "\(tool): full width past the taper (\(past) against \(middle))")
        }
    }

    @Test("a tap makes a dot as wide as the weight, bigger when pressed")
    func aTapMakesADot() {
        for samples in [
            [StrokeSample(x: 0, y: 0, time: 0)],
            [StrokeSample(x: 0, y: 0, time: 0), StrokeSample(x: 0.3, y: -0.2, time: 0.05)],
        ] {
            let outline = InkOutline(InkLine(samples: samples, tool: .pen, weight: 6), weight: 6)
            #expect(outline.pieces == [.dot(center: .zero, radius: 3)])
        }
        let pressed = InkOutline(
            InkLine(samples: [StrokeSample(x: 0, y: 0, time: 0, force: 1)], tool: .pen, weight: 6), weight: 6)
        guard case .dot(_, let radius)? = pressed.pieces.first else {
            Issue.record("no dot")
            return
        }
        #expect(radius > 3)
    }

    @Test("samples whose time goes back are read with their times held at the latest so far: the same outline, for every tool")
    func backwardTimesAreHeldAtTheLatest() {
        var samples = InkCorpus.strokes[0].samples(rate: 120)
        #expect(samples.count > 100)
        // One sample far back, a run going further back, one back to 0.
        samples[20].time = samples[5].time
        for index in 40...44 { samples[index].time = samples[39].time - Float(index - 39) * 0.01 }
        samples[70].time = 0
        var held = samples
        var latest = -Float.infinity
        for index in held.indices {
            latest = max(latest, held[index].time)
            held[index].time = latest
        }
        #expect(held != samples)
        for tool in InkOutlineTests.drawingTools {
            let weight = tool.ink.defaultWeight
            let outline = InkOutline(InkLine(samples: samples, tool: tool, weight: weight), weight: weight)
            let expected = InkOutline(InkLine(samples: held, tool: tool, weight: weight), weight: weight)
            #expect(outline == expected, "\(tool)")
        }
    }

    @Test("samples farther apart than any hand draws are drawn as they are, at once, without trapping")
    func farFlungSamplesAreDrawnAsTheyAre() {
        let far = [
            StrokeSample(x: 0, y: 0, time: 0), StrokeSample(x: 1e8, y: 0, time: 0.01),
            StrokeSample(x: 1e8, y: 3e7, time: 0.02),
        ]
        let line = InkLine(samples: far, tool: .pen, weight: 4)
        #expect(line.vertices.map(\.point) == far.map { Point(x: $0.x, y: $0.y) }, "one vertex a sample")
        #expect(line.vertices.allSatisfy { $0.radius == 2 })
        let outline = InkOutline(line, weight: 4)
        #expect(!outline.pieces.isEmpty && outline.encoded == InkOutline(line, weight: 4).encoded)
        // Far enough that the squared gap overflows: the length is infinite.
        let infinite = [StrokeSample(x: 0, y: 0, time: 0), StrokeSample(x: 1e30, y: 0, time: 1)]
        #expect(InkLine(samples: infinite, tool: .brush, weight: 8).vertices.count == 2)
    }

    @Test("samples from a peer with time going back, or numbers that are not finite, still give a finite outline")
    func hostileSamplesGiveAFiniteOutline() {
        var samples = InkCorpus.strokes[0].samples(rate: 120)
        for index in stride(from: 3, to: samples.count, by: 7) { samples[index].time = 0 }
        samples.insert(StrokeSample(x: .nan, y: 1, time: 1), at: 5)
        samples.insert(StrokeSample(x: 1, y: 1, time: .infinity, force: .nan), at: 9)
        let outline = InkOutline(InkLine(samples: samples, tool: .brush, weight: 14), weight: 14)
        #expect(!outline.pieces.isEmpty)
        let bytes = outline.encoded
        var finite = true
        var offset = 0
        // Every number in the encoding is finite (the kind bytes and counts
        // are skipped by decoding the layout).
        for piece in outline.pieces {
            switch piece {
            case .dot(let center, let radius): finite = finite && center.x.isFinite && center.y.isFinite && radius.isFinite
            case .run(let run):
                finite = finite && (run.left + run.right).allSatisfy { $0.x.isFinite && $0.y.isFinite }
            case .arrowhead(let a, let b, let c): finite = finite && [a, b, c].allSatisfy { $0.x.isFinite && $0.y.isFinite }
            }
            offset += 1
        }
        #expect(finite && !bytes.isEmpty && offset == outline.pieces.count)
    }

    @Test("the drawn-outline distance measures the union's edge: seams between pieces are not edges, a shift and a hole are")
    func theFilledDistanceSeesTheDrawnShape() {
        typealias P = OutlineGeometry.P
        func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [P] {
            // Wound as the outline's pieces are (negative signed area).
            [P(x0, y0), P(x0, y1), P(x1, y1), P(x1, y0)]
        }
        let whole = OutlineGeometry.Filled(polygons: [rectangle(0, 0, 20, 10)], step: 0.1)
        let overlapping = OutlineGeometry.Filled(
            polygons: [rectangle(0, 0, 12, 10), rectangle(8, 0, 20, 10)], step: 0.1)
        #expect(OutlineGeometry.Filled.farthest(whole, overlapping) < 0.01)
        let shifted = OutlineGeometry.Filled(polygons: [rectangle(0.7, 0, 20.7, 10)], step: 0.1)
        #expect(abs(OutlineGeometry.Filled.farthest(whole, shifted) - 0.7) < 0.01)
        // Four bars round a hole, against the square they fill but for it.
        let ring = OutlineGeometry.Filled(
            polygons: [
                rectangle(0, 0, 20, 4), rectangle(0, 16, 20, 20), rectangle(0, 0, 4, 20), rectangle(16, 0, 20, 20),
            ], step: 0.1)
        let square = OutlineGeometry.Filled(polygons: [rectangle(0, 0, 20, 20)], step: 0.1)
        #expect(abs(OutlineGeometry.Filled.farthest(ring, square) - 4) < 0.01, "the hole's edge lies 4 inside the square's")
    }

    @Test("the polygon checks the tests rely on see a crossing and a winding")
    func theChecksCanFail() {
        let bowTie: [OutlineGeometry.P] = [.init(0, 0), .init(10, 10), .init(10, 0), .init(0, 10)]
        #expect(OutlineGeometry.crossing(bowTie) != nil)
        let square: [OutlineGeometry.P] = [.init(0, 0), .init(10, 0), .init(10, 10), .init(0, 10)]
        #expect(OutlineGeometry.crossing(square) == nil)
        #expect(OutlineGeometry.signedArea(square) > 0)
        #expect(OutlineGeometry.signedArea(square.reversed()) < 0)
    }
}
