/// A stroke's centre line as it is drawn: the raw samples resampled every
/// `spacing` units along their path, smoothed between the corners the hand
/// made, each point with the radius its tool gives it there.
///
/// Everything here is IEEE single-precision addition, subtraction,
/// multiplication, division and square root, in a fixed order, so the same
/// samples give the same bits on every platform (no `sin`, `cos` or `pow`,
/// whose last bit differs between C libraries). Docs/drawing.md explains
/// the steps and their constants.
///
/// Working by distance along the path, not by sample, is what makes the
/// line the same whether a device reports 60 or 240 samples a second; and
/// every step looks at most a bounded distance ahead, so adding a sample
/// changes only the last `settledDistance` units of the line.
public struct InkLine: Hashable, Sendable {
    public struct Vertex: Hashable, Sendable {
        public var point: Point
        public var radius: Float
        /// Distance along the raw path (through its corners' apexes) from
        /// the first sample.
        public var distance: Float
        /// A corner: smoothing keeps it exactly where the hand turned.
        public var isCorner: Bool
    }

    /// Empty for no samples; one vertex for a dot.
    public private(set) var vertices: [Vertex] = []
    /// The raw path's length.
    public private(set) var length: Float = 0

    /// Distance between resampled points, in document units.
    public static let spacing: Float = 2
    /// A path shorter than this is a dot.
    public static let dotReach: Float = 1
    /// Corners are judged between the chords this far behind and ahead of
    /// a sample.
    static let cornerReach: Float = 8
    /// A turn between those chords sharper than 60° is a corner (the
    /// cosine of the angle between them is below this): a tight curve with
    /// a little jitter turns less.
    static let cornerCosine: Float = 0.5
    /// Smoothing averages this many resampled points each side.
    static let smoothingReach = 3
    /// Speed is measured across this many resampled points each side.
    static let speedReach = 4
    static let smallestRadius: Float = 0.1
    /// A corner moves at most this far to where the turn's lines meet.
    static let apexReach: Float = 1
    /// A longer path is drawn as its samples, unsmoothed (see `init`).
    public static let longestPath: Float = 1_000_000
    /// Samples at most this far apart are joined by a curve, not a chord.
    static let curvedGap: Float = 24

    /// How far back from the end of the samples an appended sample can
    /// change the line (and its outline): the curve and its timing between
    /// the last two samples, the corner test's reach twice
    /// (a corner is the sharpest candidate within one reach), the
    /// smoothing, the speed window and the radius smoothing, and the
    /// taper. Everything before it is settled.
    public static func settledDistance(_ response: InkResponse, weight: Float) -> Float {
        curvedGap + 2 * cornerReach + spacing * Float(3 + smoothingReach + speedReach + smoothingReach)
            + response.taperLength(weight: weight)
    }

    public init(samples: [StrokeSample], tool: StrokeTool, weight: Float) {
        self.init(samples: samples, response: tool.ink, weight: weight)
    }

    public init(samples: [StrokeSample], response: InkResponse, weight: Float) {
        let sampled = RawPath(samples)
        guard sampled.count > 0 else { return }
        let halfWeight = max(weight, 0) / 2
        guard sampled.length >= Self.dotReach else {
            let radius = max(halfWeight * response.pressureFactor(sampled.pressures[0]), Self.smallestRadius)
            vertices = [Vertex(point: sampled.point(0), radius: radius, distance: 0, isCorner: false)]
            return
        }
        // No hand draws this far: such samples come from a broken or
        // hostile client, and resampling them every 2 units would take
        // without end (past 2^24 steps a Float count stops counting). They
        // are drawn as they are, one vertex a sample, at half the weight.
        guard sampled.length.isFinite, sampled.length <= Self.longestPath else {
            length = sampled.length
            let radius = max(halfWeight, Self.smallestRadius)
            vertices = (0..<sampled.count).map { index in
                Vertex(point: sampled.point(index), radius: radius, distance: sampled.distances[index], isCorner: false)
            }
            return
        }
        let found = sampled.corners()
        let (path, corners) = sampled.throughApexes(found).curved(corners: found)
        length = path.length
        var resampled = Resampled(path, corners: corners)
        resampled.smoothPositions()
        let radii = resampled.radii(response, halfWeight: halfWeight, weight: weight, length: path.length)
        vertices.reserveCapacity(resampled.count)
        for index in 0..<resampled.count {
            vertices.append(
                Vertex(
                    point: Point(x: resampled.xs[index], y: resampled.ys[index]), radius: radii[index],
                    distance: resampled.distances[index], isCorner: resampled.isCorner[index]))
        }
    }
}

/// A corner: the point where the hand turned, and where that most likely was.
private struct Corner {
    var index: Int
    var apex: Point
}

/// The samples as a polyline: positions, times that never go back,
/// pressures (0.5 where the device gave none), and the distance along it.
/// A sample at the same place as the one before adds nothing and is left
/// out, as is one with a number that is not finite.
///
/// Corners are found on the samples as they are, and each corner sample
/// moved to its apex; then, between samples up to `curvedGap` apart, the
/// path follows a centripetal Catmull-Rom curve through them, a point every
/// unit: a device that samples slowly cuts a tight curve's chords, and the
/// curve puts them back, so 60 samples a second draw what 240 do. Each of
/// those points gets the time the hand most likely passed it, from a cubic
/// in time through the samples (`SegmentTiming`), not straight in distance.
/// Farther apart (a flick) the path stays straight and its timing looks
/// at no sample after it, which bounds how far back a new sample reaches.
private struct RawPath {
    var xs: [Float] = []
    var ys: [Float] = []
    var times: [Float] = []
    var pressures: [Float] = []
    var distances: [Float] = []

    /// The path with a curve through the samples between corners (see
    /// above), and the corners' indices in it. Next to a corner the path
    /// stays straight, and a curve takes no direction from across one:
    /// a curve there would round off the turn the corner keeps.
    func curved(corners: [Corner]) -> (path: RawPath, corners: [Corner]) {
        var curved = RawPath()
        let estimate = count * 2
        curved.xs.reserveCapacity(estimate)
        curved.ys.reserveCapacity(estimate)
        curved.times.reserveCapacity(estimate)
        curved.pressures.reserveCapacity(estimate)
        curved.distances.reserveCapacity(estimate)
        var isCorner = [Bool](repeating: false, count: count)
        for corner in corners { isCorner[corner.index] = true }
        var mapped: [Corner] = []
        curved.append(x: xs[0], y: ys[0], time: times[0], pressure: pressures[0])
        let last = count - 1
        for index in 0..<last {
            let p1 = point(index)
            let p2 = point(index + 1)
            let gap = p2 - p1
            let length = (gap.dx * gap.dx + gap.dy * gap.dy).squareRoot()
            let near = length <= InkLine.curvedGap
            let steps = min(max(Int(min(length, InkLine.curvedGap)), 1), Int(InkLine.curvedGap))
            if steps > 1 {
                var curve: CentripetalCurve?
                if near, !isCorner[index], !isCorner[index + 1] {
                    // Beyond an end or a corner, the point the segment points to.
                    let p0 = index > 0 && !isCorner[index - 1] ? point(index - 1) : p1 + (p1 - p2)
                    let p3 = index + 1 < last && !isCorner[index + 2] ? point(index + 2) : p2 + (p2 - p1)
                    curve = CentripetalCurve(p0, p1, p2, p3)
                }
                let speeds = speeds(at: index, lookingAhead: near)
                let timing = SegmentTiming(
                    distance: distances[index + 1] - distances[index], elapsed: times[index + 1] - times[index],
                    startSpeed: speeds.start, endSpeed: speeds.end)
                for step in 1..<steps {
                    let fraction = Float(step) / Float(steps)
                    let point = curve?.point(at: fraction) ?? p1 + gap * fraction
                    curved.append(
                        x: point.x, y: point.y, time: times[index] + timing.elapsed(at: fraction),
                        pressure: pressures[index] + (pressures[index + 1] - pressures[index]) * fraction)
                }
            }
            curved.append(x: xs[index + 1], y: ys[index + 1], time: times[index + 1], pressure: pressures[index + 1])
            if isCorner[index + 1], let corner = corners.first(where: { $0.index == index + 1 }) {
                mapped.append(Corner(index: curved.count - 1, apex: corner.apex))
            }
        }
        return (curved, mapped)
    }

    private init() {}

    /// The speeds at the ends of the chord from sample `index`: the
    /// derivatives of the cubic in time through it and the samples either
    /// side (a parabola at an end of the path, or without the sample after
    /// when not `lookingAhead`). Nil where times do not rise.
    func speeds(at index: Int, lookingAhead: Bool) -> (start: Float?, end: Float?) {
        let b = index
        let c = index + 1
        let a = index > 0 ? index - 1 : nil
        let d = lookingAhead && index + 2 < count ? index + 2 : nil
        func slope(_ i: Int, _ j: Int) -> Float? {
            let elapsed = times[j] - times[i]
            return elapsed > 0 ? (distances[j] - distances[i]) / elapsed : nil
        }
        guard let bc = slope(b, c) else { return (nil, nil) }
        let tb = times[b]
        let tc = times[c]
        if let a, let d, let ab = slope(a, b), let cd = slope(c, d) {
            let ta = times[a]
            let td = times[d]
            let abc = (bc - ab) / (tc - ta)
            let bcd = (cd - bc) / (td - tb)
            let abcd = (bcd - abc) / (td - ta)
            return (
                ab + abc * (tb - ta) + abcd * (tb - ta) * (tb - tc),
                ab + abc * ((tc - ta) + (tc - tb)) + abcd * (tc - ta) * (tc - tb)
            )
        }
        if let a, let ab = slope(a, b) {
            let ta = times[a]
            let abc = (bc - ab) / (tc - ta)
            return (ab + abc * (tb - ta), ab + abc * ((tc - ta) + (tc - tb)))
        }
        if let d, let cd = slope(c, d) {
            let td = times[d]
            let bcd = (cd - bc) / (td - tb)
            return (bc + bcd * (tb - tc), bc + bcd * (tc - tb))
        }
        return (nil, nil)
    }

    /// The path with each corner sample moved to its apex, so that the
    /// distance along it runs through the turn the hand made (a slow
    /// device's chords cut the turn short), at the time the hand most
    /// likely passed it: between the sample and its neighbour on the
    /// apex's side, in proportion to the distances. An apex at a
    /// neighbouring sample stays at the sample.
    func throughApexes(_ corners: [Corner]) -> RawPath {
        var moved = self
        for corner in corners {
            let index = corner.index
            guard corner.apex != point(index - 1), corner.apex != point(index + 1) else { continue }
            moved.xs[index] = corner.apex.x
            moved.ys[index] = corner.apex.y
            let here = point(index)
            let incoming = here - point(index - 1)
            let shift = corner.apex - here
            let other = shift.dx * incoming.dx + shift.dy * incoming.dy > 0 ? index + 1 : index - 1
            let toApex = (shift.dx * shift.dx + shift.dy * shift.dy).squareRoot()
            let beyond = point(other) - corner.apex
            let toOther = (beyond.dx * beyond.dx + beyond.dy * beyond.dy).squareRoot()
            moved.times[index] = times[index] + (times[other] - times[index]) * (toApex / (toApex + toOther))
        }
        for index in 1..<count {
            let dx = moved.xs[index] - moved.xs[index - 1]
            let dy = moved.ys[index] - moved.ys[index - 1]
            moved.distances[index] = moved.distances[index - 1] + (dx * dx + dy * dy).squareRoot()
        }
        return moved
    }

    /// The samples themselves, as a polyline.
    init(_ samples: [StrokeSample]) {
        xs.reserveCapacity(samples.count)
        ys.reserveCapacity(samples.count)
        times.reserveCapacity(samples.count)
        pressures.reserveCapacity(samples.count)
        for index in samples.indices {
            let sample = samples[index]
            guard sample.x.isFinite, sample.y.isFinite, sample.time.isFinite else { continue }
            let force = sample.force ?? 0.5
            let pressure = force.isFinite ? min(max(force, 0), 1) : 0.5
            append(x: sample.x, y: sample.y, time: sample.time, pressure: pressure)
        }
    }

    /// Adds a point unless it repeats the last one; its time is never
    /// earlier than the last.
    private mutating func append(x: Float, y: Float, time: Float, pressure: Float) {
        if let last = xs.indices.last {
            let dx = x - xs[last]
            let dy = y - ys[last]
            guard dx != 0 || dy != 0 else { return }
            distances.append(distances[last] + (dx * dx + dy * dy).squareRoot())
            times.append(max(time, times[last]))
        } else {
            distances.append(0)
            times.append(time)
        }
        xs.append(x)
        ys.append(y)
        pressures.append(pressure)
    }

    var count: Int { xs.count }
    var length: Float { distances.last ?? 0 }

    func point(_ index: Int) -> Point { Point(x: xs[index], y: ys[index]) }

    /// The point `distance` along the path, which lies on the segment
    /// starting at sample `segment`.
    func point(at distance: Float, segment: Int) -> Point {
        let fraction = (distance - distances[segment]) / (distances[segment + 1] - distances[segment])
        return Point(
            x: xs[segment] + (xs[segment + 1] - xs[segment]) * fraction,
            y: ys[segment] + (ys[segment + 1] - ys[segment]) * fraction)
    }

    /// The points where the hand turned sharply: the chord from
    /// `cornerReach` behind the point to it and the chord from it to
    /// `cornerReach` ahead meet at more than 60°, and so do the
    /// chords of half that reach, and no point within
    /// one reach either side turns as sharply (the earlier wins a tie). A
    /// point closer than the reach to either end is never a corner.
    func corners() -> [Corner] {
        let reach = InkLine.cornerReach
        var candidates: [(index: Int, distance: Float, cosine: Float)] = []
        var behind = 0
        var ahead = 1
        for index in 1..<max(count - 1, 1) {
            let distance = distances[index]
            guard distance - reach >= 0, distance + reach <= length else { continue }
            while distances[behind + 1] < distance - reach { behind += 1 }
            ahead = max(ahead, index + 1)
            while distances[ahead] < distance + reach { ahead += 1 }
            let here = point(index)
            let cosine = turnCosine(at: here, from: point(at: distance - reach, segment: behind),
                to: point(at: distance + reach, segment: ahead - 1))
            // A turn at a point is as sharp at half the reach; a tight
            // curve turns only half as much there, and is not a corner.
            guard cosine < InkLine.cornerCosine,
                turnCosine(at: here, from: point(at: distance - reach / 2), to: point(at: distance + reach / 2))
                    < InkLine.cornerCosine
            else { continue }
            candidates.append((index, distance, cosine))
        }
        var corners: [Corner] = []
        var first = 0
        for (position, candidate) in candidates.enumerated() {
            while candidates[first].distance < candidate.distance - reach { first += 1 }
            var sharpest = true
            var other = first
            while other < candidates.count, candidates[other].distance <= candidate.distance + reach {
                let rival = candidates[other]
                if rival.cosine < candidate.cosine || (rival.cosine == candidate.cosine && other < position) {
                    sharpest = false
                    break
                }
                other += 1
            }
            if sharpest { corners.append(Corner(index: candidate.index, apex: apex(at: candidate.index))) }
        }
        return corners
    }

    /// The cosine of the angle between the chords into and out of `here`;
    /// 1 (no turn) when either has no length.
    private func turnCosine(at here: Point, from back: Point, to front: Point) -> Float {
        let incoming = here - back
        let outgoing = front - here
        let product =
            (incoming.dx * incoming.dx + incoming.dy * incoming.dy)
            * (outgoing.dx * outgoing.dx + outgoing.dy * outgoing.dy)
        guard product > 0 else { return 1 }
        return (incoming.dx * outgoing.dx + incoming.dy * outgoing.dy) / product.squareRoot()
    }

    /// Where the hand most likely turned near a corner sample: the meeting
    /// point of the lines the path follows into it (from one reach to half
    /// a reach before) and out of it (half a reach to one reach after).
    /// A device sampling slowly rarely reports the very tip of a quick
    /// turn; this puts it back. Farther than `apexReach` from the sample,
    /// the turn was not a point, and the sample stays.
    private func apex(at index: Int) -> Point {
        let here = point(index)
        let distance = distances[index]
        let reach = InkLine.cornerReach
        let back = point(at: distance - reach)
        let intoCorner = point(at: distance - reach / 2) - back
        let outOf = point(at: distance + reach / 2)
        let outward = point(at: distance + reach) - outOf
        let denominator = intoCorner.dx * outward.dy - intoCorner.dy * outward.dx
        guard denominator != 0 else { return here }
        let between = outOf - back
        let along = (between.dx * outward.dy - between.dy * outward.dx) / denominator
        let apex = back + intoCorner * along
        let shift = apex - here
        guard shift.dx * shift.dx + shift.dy * shift.dy <= InkLine.apexReach * InkLine.apexReach else { return here }
        return apex
    }

    /// The point `distance` along the path (0...length).
    func point(at distance: Float) -> Point {
        var low = 0
        var high = count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if distances[middle] <= distance { low = middle } else { high = middle }
        }
        return point(at: distance, segment: low)
    }
}

/// The path resampled every `spacing` units from each corner (and from the
/// start), so a point, once made, stays where it is as the path grows;
/// corners and the two ends are kept as they were sampled.
private struct Resampled {
    var xs: [Float] = []
    var ys: [Float] = []
    var times: [Float] = []
    var pressures: [Float] = []
    var distances: [Float] = []
    var isCorner: [Bool] = []
    /// Where each stretch between corners starts and ends, as indices.
    var stretches: [(start: Int, end: Int)] = []

    init(_ path: RawPath, corners: [Corner]) {
        let spacing = InkLine.spacing
        let estimate = Int(path.length / spacing) + corners.count + 2
        xs.reserveCapacity(estimate)
        ys.reserveCapacity(estimate)
        times.reserveCapacity(estimate)
        pressures.reserveCapacity(estimate)
        distances.reserveCapacity(estimate)
        isCorner.reserveCapacity(estimate)
        appendSample(path, 0, apex: nil)
        var from = 0
        for cornerIndex in 0...corners.count {
            let to = cornerIndex < corners.count ? corners[cornerIndex].index : path.count - 1
            let stretchStart = xs.count - 1
            var step: Float = 1
            var segment = from
            while true {
                let distance = path.distances[from] + step * spacing
                // The last point before the stretch's end is at least half a
                // spacing from it: no sliver of a segment at a corner.
                guard distance <= path.distances[to] - spacing / 2 else { break }
                while path.distances[segment + 1] < distance { segment += 1 }
                let fraction =
                    (distance - path.distances[segment]) / (path.distances[segment + 1] - path.distances[segment])
                xs.append(path.xs[segment] + (path.xs[segment + 1] - path.xs[segment]) * fraction)
                ys.append(path.ys[segment] + (path.ys[segment + 1] - path.ys[segment]) * fraction)
                times.append(path.times[segment] + (path.times[segment + 1] - path.times[segment]) * fraction)
                pressures.append(
                    path.pressures[segment] + (path.pressures[segment + 1] - path.pressures[segment]) * fraction)
                distances.append(distance)
                isCorner.append(false)
                step += 1
            }
            appendSample(path, to, apex: cornerIndex < corners.count ? corners[cornerIndex].apex : nil)
            stretches.append((stretchStart, xs.count - 1))
            from = to
        }
    }

    /// A point of the path as it is, or a corner at its apex.
    private mutating func appendSample(_ path: RawPath, _ index: Int, apex: Point?) {
        xs.append(apex?.x ?? path.xs[index])
        ys.append(apex?.y ?? path.ys[index])
        times.append(path.times[index])
        pressures.append(path.pressures[index])
        distances.append(path.distances[index])
        isCorner.append(apex != nil)
    }

    var count: Int { xs.count }

    /// Each stretch smoothed on its own with a binomial kernel (close to a
    /// Gaussian of 2.4 units), narrowed symmetrically near the stretch's
    /// ends so they stay put: jitter goes, corners and ends stay.
    mutating func smoothPositions() {
        var smoothedX = xs
        var smoothedY = ys
        for stretch in stretches {
            guard stretch.end - stretch.start > 1 else { continue }
            for index in (stretch.start + 1)..<stretch.end {
                let reach = min(InkLine.smoothingReach, index - stretch.start, stretch.end - index)
                smoothedX[index] = Binomial.average(xs, around: index, reach: reach)
                smoothedY[index] = Binomial.average(ys, around: index, reach: reach)
            }
        }
        xs = smoothedX
        ys = smoothedY
    }

    /// The radius at each point: half the weight, times the speed factor
    /// (speed measured along the raw path across `speedReach` points each
    /// side) and the pressure factor, smoothed like the positions, then
    /// tapered at both ends.
    func radii(_ response: InkResponse, halfWeight: Float, weight: Float, length: Float) -> [Float] {
        let last = count - 1
        var base = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let low = max(0, index - InkLine.speedReach)
            let high = min(last, index + InkLine.speedReach)
            let elapsed = times[high] - times[low]
            let speed = elapsed > 0 ? (distances[high] - distances[low]) / elapsed : 0
            base[index] = halfWeight * response.speedFactor(speed) * response.pressureFactor(pressures[index])
        }
        var radii = base
        for index in 0..<count {
            let reach = min(InkLine.smoothingReach, index, last - index)
            let smoothed = reach > 0 ? Binomial.average(base, around: index, reach: reach) : base[index]
            let tapered =
                smoothed * response.taperFactor(distance: distances[index], weight: weight)
                * response.taperFactor(distance: length - distances[index], weight: weight)
            radii[index] = max(tapered, InkLine.smallestRadius)
        }
        return radii
    }
}

/// When the hand passed each point of a chord between two samples: the
/// distance along the chord as a cubic in time (Hermite, with the hand's
/// speed at each end as its slopes, held between 0 and three times the
/// chord's speed so that it never goes back), solved for the time by
/// halving. A hand
/// slowing into a stop covers the last units of a chord in much of its
/// time; time straight in distance would have it pass them early, so a
/// slowly sampled stop would read faster than a quickly sampled one.
/// Without a speed at either end, time goes straight with distance.
private struct SegmentTiming {
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
private enum Binomial {
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
private struct CentripetalCurve {
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
