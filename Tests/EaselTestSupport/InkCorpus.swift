import EaselModel
import Foundation

/// Real-looking strokes for the ink's tests and benchmarks: each a path a
/// hand moves along and how it moves, sampled at any rate.
public struct InkCorpusStroke: Sendable {
    public enum Pace: Sendable {
        case steady
        case stopping
        /// As hands draw curves: slower where the path bends, the speed
        /// following the radius of curvature to the power ⅓ (the
        /// "two-thirds power law" of human movement), `speed` on a radius
        /// of 50.
        case natural
    }

    public var name: String
    public var points: [Point]
    public var speed: Float
    public var pace: Pace
    /// Pressure along the stroke, from 0 at its start to 1 at its end; nil
    /// for a device without pressure.
    public var pressure: (@Sendable (Float) -> Float)?

    public init(
        name: String, points: [Point], speed: Float, pace: Pace, pressure: (@Sendable (Float) -> Float)? = nil
    ) {
        self.name = name
        self.points = points
        self.speed = speed
        self.pace = pace
        self.pressure = pressure
    }

    public func samples(rate: Float, noise: Float = 0, seed: UInt64 = 1) -> [StrokeSample] {
        var samples =
            switch pace {
            case .steady: InkMotion.samples(through: points, speed: speed, rate: rate, pace: .steady)
            case .stopping: InkMotion.samples(through: points, speed: speed, rate: rate, pace: .stopping)
            case .natural: naturalSamples(rate: rate)
            }
        let duration = samples.last?.time ?? 1
        var random = SeededRandom(seed: seed)
        for index in samples.indices {
            if let pressure { samples[index].force = pressure(samples[index].time / max(duration, 1e-6)) }
            // The first sample is where the stroke starts: it stays at 0, 0.
            guard noise > 0, index > 0 else { continue }
            samples[index].x += Float.random(in: -noise...noise, using: &random)
            samples[index].y += Float.random(in: -noise...noise, using: &random)
        }
        return samples
    }
}

extension InkCorpusStroke {
    fileprivate func naturalSamples(rate: Float) -> [StrokeSample] {
        let p = points.map { SIMD2<Double>(Double($0.x), Double($0.y)) }
        func radius(_ index: Int) -> Double {
            guard index > 0, index + 1 < p.count else { return 1e9 }
            let a = p[index - 1], b = p[index], c = p[index + 1]
            let ab = ((b - a) * (b - a)).sum().squareRoot()
            let bc = ((c - b) * (c - b)).sum().squareRoot()
            let ca = ((a - c) * (a - c)).sum().squareRoot()
            let cross = abs((b - a).x * (c - a).y - (b - a).y * (c - a).x)
            return cross > 0 ? ab * bc * ca / (2 * cross) : 1e9
        }
        var times = [0.0]
        for index in 1..<p.count {
            let length = ((p[index] - p[index - 1]) * (p[index] - p[index - 1])).sum().squareRoot()
            let bend = min(radius(index - 1), radius(index))
            let speed = Double(speed) * min(max(cbrt(bend / 50), 0.2), 2)
            times.append(times[index - 1] + length / speed)
        }
        var samples: [StrokeSample] = []
        var segment = 0
        var tick = 0.0
        while tick / Double(rate) < times[times.count - 1] {
            let time = tick / Double(rate)
            while times[segment + 1] <= time { segment += 1 }
            let fraction = (time - times[segment]) / (times[segment + 1] - times[segment])
            let point = p[segment] + (p[segment + 1] - p[segment]) * fraction - p[0]
            samples.append(StrokeSample(x: Float(point.x), y: Float(point.y), time: Float(time)))
            tick += 1
        }
        let end = p[p.count - 1] - p[0]
        samples.append(StrokeSample(x: Float(end.x), y: Float(end.y), time: Float(times[times.count - 1])))
        return samples
    }
}

public enum InkCorpus {
    /// A curve as many points, `steps` of them from `0` to `1`.
    static func curve(steps: Int = 600, _ point: (Double) -> (Double, Double)) -> [Point] {
        (0...steps).map { step in
            let (x, y) = point(Double(step) / Double(steps))
            return Point(x: Float(x), y: Float(y))
        }
    }

    public static let strokes: [InkCorpusStroke] = [
        InkCorpusStroke(
            name: "slow S-curve with rising pressure",
            points: curve { t in (300 * t, 60 * sin(2 * .pi * t)) }, speed: 150, pace: .steady,
            pressure: { 0.2 + 0.7 * $0 }),
        InkCorpusStroke(
            name: "fast flick", points: curve(steps: 50) { t in (400 * t, 40 * t * t) }, speed: 2500, pace: .steady),
        InkCorpusStroke(
            name: "fast zigzag",
            points: (0...8).map { Point(x: Float($0) * 30, y: $0 % 2 == 0 ? 0 : 60) }, speed: 900, pace: .stopping),
        InkCorpusStroke(
            name: "cursive loops",
            points: curve(steps: 1200) { t in
                (260 * t - 22 * sin(2 * .pi * 5 * t), 22 * cos(2 * .pi * 5 * t))
            }, speed: 400, pace: .natural),
        InkCorpusStroke(
            name: "sharp V", points: [Point(x: 0, y: 0), Point(x: 120, y: 0), Point(x: 30, y: 90)], speed: 300,
            pace: .stopping),
        InkCorpusStroke(
            name: "square by hand",
            points: [
                Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 100, y: 100), Point(x: 0, y: 100), Point(x: 0, y: 0),
            ], speed: 350, pace: .stopping, pressure: { 0.5 + 0.3 * $0 }),
        InkCorpusStroke(
            name: "tightening spiral",
            points: curve(steps: 1500) { t in
                let radius = 80 - 72 * t
                return (radius * cos(2 * .pi * 4 * t), radius * sin(2 * .pi * 4 * t))
            }, speed: 500, pace: .natural),
        InkCorpusStroke(
            name: "circle", points: curve { t in (70 * cos(2 * .pi * t), 70 * sin(2 * .pi * t)) }, speed: 600,
            pace: .steady, pressure: { 0.5 + 0.4 * Float(sin(Double($0) * 12)) }),
        InkCorpusStroke(
            name: "small handwriting loops",
            points: curve(steps: 1200) { t in (120 * t - 6 * sin(2 * .pi * 8 * t), 7 * cos(2 * .pi * 8 * t)) },
            speed: 250, pace: .natural),
        InkCorpusStroke(
            name: "hairpin", points: [Point(x: 0, y: 0), Point(x: 150, y: 0), Point(x: 0, y: 6)], speed: 1200,
            pace: .stopping),
    ]

    /// The corpus's motions as their three usual device rates.
    public static let rates: [Float] = [60, 120, 240]
}
