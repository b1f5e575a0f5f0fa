/// A corner: the point where the hand turned, and where that most likely was.
struct Corner {
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
struct RawPath {
    var xs: [Float] = []
    var ys: [Float] = []
    var times: [Float] = []
    var pressures: [Float] = []
    var distances: [Float] = []

    init() {}

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

    /// Adds a sample unless a number in it is not finite, or it repeats the
    /// last point.
    mutating func append(_ sample: StrokeSample) {
        guard sample.x.isFinite, sample.y.isFinite, sample.time.isFinite else { return }
        let force = sample.force ?? 0.5
        let pressure = force.isFinite ? min(max(force, 0), 1) : 0.5
        append(x: sample.x, y: sample.y, time: sample.time, pressure: pressure)
    }

    /// Adds a point unless it repeats the last one; its time is never
    /// earlier than the last.
    mutating func append(x: Float, y: Float, time: Float, pressure: Float) {
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

    /// Reserved only when starting: reserving a little more at every
    /// sample would copy the arrays each time.
    mutating func reserveCapacity(_ capacity: Int) {
        xs.reserveCapacity(capacity)
        ys.reserveCapacity(capacity)
        times.reserveCapacity(capacity)
        pressures.reserveCapacity(capacity)
        distances.reserveCapacity(capacity)
    }

    mutating func removeLast(_ k: Int) {
        xs.removeLast(k)
        ys.removeLast(k)
        times.removeLast(k)
        pressures.removeLast(k)
        distances.removeLast(k)
    }
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

    /// The points where the hand turned sharply, beyond `cutoff` along the
    /// path: the chord from `cornerReach` behind the point to it and the
    /// chord from it to `cornerReach` ahead meet at more than 60°, and so
    /// do the chords of half that reach, and no point within one reach
    /// either side turns as sharply (the earlier wins a tie). A point
    /// closer than the reach to either end is never a corner. Only points
    /// from a reach before the cutoff are judged: the rivals of the first
    /// corner beyond it.
    func corners(after cutoff: Float) -> [Corner] {
        let reach = InkLine.cornerReach
        var candidates: [(index: Int, distance: Float, cosine: Float)] = []
        let first = max(firstIndex(reaching: cutoff - reach), 1)
        // Where the chord behind the first point judged can start: the
        // search below only moves forward.
        var behind = max(firstIndex(reaching: cutoff - 2 * reach) - 1, 0)
        var ahead = first
        let end = count - 1
        if first < end {
            for index in first..<end {
                let distance = distances[index]
                guard distance - reach >= 0, distance + reach <= length else { continue }
                while distances[behind + 1] < distance - reach { behind += 1 }
                ahead = max(ahead, index + 1)
                while distances[ahead] < distance + reach { ahead += 1 }
                let here = point(index)
                let cosine = turnCosine(
                    at: here, from: point(at: distance - reach, segment: behind),
                    to: point(at: distance + reach, segment: ahead - 1))
                // A turn at a point is as sharp at half the reach; a tight
                // curve turns only half as much there, and is not a corner.
                guard cosine < InkLine.cornerCosine,
                    turnCosine(at: here, from: point(at: distance - reach / 2), to: point(at: distance + reach / 2))
                        < InkLine.cornerCosine
                else { continue }
                candidates.append((index, distance, cosine))
            }
        }
        var corners: [Corner] = []
        var firstRival = 0
        for (position, candidate) in candidates.enumerated() where candidate.distance > cutoff {
            while candidates[firstRival].distance < candidate.distance - reach { firstRival += 1 }
            var sharpest = true
            var other = firstRival
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

    /// The first index at least `distance` along the path; `count` if none.
    func firstIndex(reaching distance: Float) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if distances[middle] < distance { low = middle + 1 } else { high = middle }
        }
        return low
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
