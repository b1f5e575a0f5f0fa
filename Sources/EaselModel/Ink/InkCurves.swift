/// When the hand passed each point of a chord between two samples: the
/// distance along the chord as a cubic in time (Hermite, with the hand's
/// speed at each end as its slopes, held between 0 and three times the
/// chord's speed so that it never goes back), solved for the time by
/// halving. A hand
/// slowing into a stop covers the last units of a chord in much of its
/// time; time straight in distance would have it pass them early, so a
/// slowly sampled stop would read faster than a quickly sampled one.
/// Without a speed at either end, time goes straight with distance.
struct SegmentTiming {
    var totalElapsed: Float
    /// The slopes at the ends, in chords per chord time; nil: straight.
    var slopes: (start: Float, end: Float)?

    init(distance: Float, elapsed: Float, startSpeed: Float?, endSpeed: Float?) {
        totalElapsed = elapsed
        if elapsed > 0, distance > 0, let startSpeed, let endSpeed {
            let scale = elapsed / distance
            slopes = (min(max(startSpeed * scale, 0), 3), min(max(endSpeed * scale, 0), 3))
        }
    }

    /// The time from the chord's start to `fraction` of its length.
    func elapsed(at fraction: Float) -> Float {
        guard let slopes else { return totalElapsed * fraction }
        var low: Float = 0
        var high: Float = 1
        for _ in 0..<24 {
            let t = (low + high) / 2
            let t2 = t * t
            let t3 = t2 * t
            let covered = (3 * t2 - 2 * t3) + slopes.start * (t3 - 2 * t2 + t) + slopes.end * (t3 - t2)
            if covered < fraction { low = t } else { high = t }
        }
        return totalElapsed * ((low + high) / 2)
    }
}

/// Weighted averages with binomial weights: rows 2, 4 and 6 of Pascal's
/// triangle, summed left to right so every platform rounds alike.
enum Binomial {
    static let rows: [[Float]] = [
        [1],
        [1, 2, 1],
        [1, 4, 6, 4, 1],
        [1, 6, 15, 20, 15, 6, 1],
    ]
    static let totals: [Float] = [1, 4, 16, 64]

    static func average(_ values: [Float], around index: Int, reach: Int) -> Float {
        let weights = rows[reach]
        var sum: Float = 0
        for offset in 0..<weights.count {
            sum += weights[offset] * values[index - reach + offset]
        }
        return sum / totals[reach]
    }
}

/// A centripetal Catmull-Rom segment from `p1` to `p2` (Barry and
/// Goldman's pyramid; knots spaced by the square root of each chord), which
/// never loops or overshoots between samples the way the uniform one can.
struct CentripetalCurve {
    let p0, p1, p2, p3: Point
    let t1, t2, t3: Float

    init(_ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point) {
        self.p0 = p0
        self.p1 = p1
        self.p2 = p2
        self.p3 = p3
        func knot(_ a: Point, _ b: Point) -> Float {
            let d = b - a
            return max((d.dx * d.dx + d.dy * d.dy).squareRoot().squareRoot(), 1e-6)
        }
        t1 = knot(p0, p1)
        t2 = t1 + knot(p1, p2)
        t3 = t2 + knot(p2, p3)
    }

    /// The point a `fraction` of the way from `p1` to `p2` in knot time.
    func point(at fraction: Float) -> Point {
        let t = t1 + (t2 - t1) * fraction
        let a1 = mix(p0, p1, (t - 0) / t1)
        let a2 = mix(p1, p2, (t - t1) / (t2 - t1))
        let a3 = mix(p2, p3, (t - t2) / (t3 - t2))
        let b1 = mix(a1, a2, (t - 0) / t2)
        let b2 = mix(a2, a3, (t - t1) / (t3 - t1))
        return mix(b1, b2, (t - t1) / (t2 - t1))
    }

    private func mix(_ a: Point, _ b: Point, _ weight: Float) -> Point {
        Point(x: a.x + (b.x - a.x) * weight, y: a.y + (b.y - a.y) * weight)
    }
}
