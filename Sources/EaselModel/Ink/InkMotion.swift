/// The samples a steady hand would give moving a pen through points: what
/// bots draw with, and what the tests and benchmarks feed the ink.
public enum InkMotion {
    /// How the hand moves between the points.
    public enum Pace: Hashable, Sendable {
        /// At one speed all the way, through every point without slowing.
        case steady
        /// Stopping at every point: each leg speeds up and slows down as a
        /// minimum-jerk reach does, at the given speed on average. Every
        /// point is a deliberate corner.
        case stopping
    }

    /// Samples `rate` times a second (and one at the last point) moving
    /// through `points` at `speed` document units a second, with `pressure`
    /// as every sample's force. Positions are relative to the first point,
    /// as a stroke's are. Empty without points; one sample for one point.
    public static func samples(
        through points: [Point], speed: Float, rate: Float, pressure: Float? = nil, pace: Pace = .steady
    ) -> [StrokeSample] {
        guard let origin = points.first else { return [] }
        guard points.count > 1, speed > 0, rate > 0 else {
            return [StrokeSample(x: 0, y: 0, time: 0, force: pressure)]
        }
        var legStarts: [Float] = [0]
        var lengths: [Float] = []
        for index in 1..<points.count {
            let leg = points[index] - points[index - 1]
            lengths.append((leg.dx * leg.dx + leg.dy * leg.dy).squareRoot())
            legStarts.append(legStarts[index - 1] + lengths[index - 1] / speed)
        }
        let duration = legStarts[points.count - 1]
        var samples: [StrokeSample] = []
        var leg = 0
        var tick: Float = 0
        while true {
            let time = tick / rate
            guard time < duration else { break }
            while leg < lengths.count - 1, legStarts[leg + 1] <= time { leg += 1 }
            var fraction = (time - legStarts[leg]) / (legStarts[leg + 1] - legStarts[leg])
            if pace == .stopping {
                fraction = fraction * fraction * fraction * (10 - fraction * (15 - 6 * fraction))
            }
            let start = points[leg]
            let offset = (points[leg + 1] - start) * fraction
            samples.append(
                StrokeSample(x: start.x + offset.dx - origin.x, y: start.y + offset.dy - origin.y, time: time, force: pressure))
            tick += 1
        }
        let last = points[points.count - 1]
        samples.append(StrokeSample(x: last.x - origin.x, y: last.y - origin.y, time: duration, force: pressure))
        return samples
    }
}
