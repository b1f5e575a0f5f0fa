extension InkLine {
    /// A line that grows with its samples. Each step of the line looks a
    /// bounded distance ahead, so an appended sample can change only the
    /// end of each step's output; the builder keeps every step's output
    /// and recomputes only that end, in the same order of operations, so
    /// its line is bit for bit `InkLine(samples:)` of all its samples and
    /// a live stroke costs the same per sample however long it grows.
    public struct Builder: Sendable {
        public let response: InkResponse
        public let weight: Float
        /// The line of every sample appended so far.
        public private(set) var line = InkLine()
        /// How many of the line's first vertices the last `append` left as
        /// they were.
        public private(set) var unchangedVertices = 0

        /// The samples as they came.
        private var raw = RawPath()
        /// Where the hand turned, as indices into `raw`.
        private var corners: [Corner] = []
        /// `raw` with each corner at its apex, and which samples are corners.
        private var moved = RawPath()
        private var isCorner: [Bool] = []
        /// `moved` with curves between samples; the index in it of each
        /// sample of `moved`, and its corners.
        private var curved = RawPath()
        private var curvedEnds: [Int] = []
        private var curvedCorners: [Corner] = []
        private var resampled = ResampledPath()
        /// Each resampled point's radius before smoothing and taper.
        private var baseRadii: [Float] = []

        public init(response: InkResponse, weight: Float) {
            self.response = response
            self.weight = weight
        }

        public init(tool: StrokeTool, weight: Float) {
            self.init(response: tool.ink, weight: weight)
        }

        public mutating func append(contentsOf samples: some Sequence<StrokeSample>) {
            let oldCount = raw.count
            let oldLength = raw.length
            for sample in samples { raw.append(sample) }
            guard raw.count > oldCount else {
                unchangedVertices = line.vertices.count
                return
            }
            unchangedVertices = 0
            let halfWeight = max(weight, 0) / 2
            guard raw.length >= InkLine.dotReach else {
                forgetSteps()
                let radius = max(halfWeight * response.pressureFactor(raw.pressures[0]), InkLine.smallestRadius)
                line = InkLine(vertices: [Vertex(point: raw.point(0), radius: radius, distance: 0, isCorner: false)], length: 0)
                return
            }
            // No hand draws this far: such samples come from a broken or
            // hostile client, and resampling them every 2 units would take
            // without end (past 2^24 steps a Float count stops counting).
            // They are drawn as they are, one vertex a sample.
            guard raw.length.isFinite, raw.length <= InkLine.longestPath else {
                forgetSteps()
                let radius = max(halfWeight, InkLine.smallestRadius)
                let vertices = (0..<raw.count).map { index in
                    Vertex(point: raw.point(index), radius: radius, distance: raw.distances[index], isCorner: false)
                }
                line = InkLine(vertices: vertices, length: raw.length)
                return
            }
            let fresh = moved.count == 0
            let firstMoved = findCorners(after: fresh ? -.infinity : oldLength - 2 * InkLine.cornerReach, from: oldCount)
            moveCorners(from: fresh ? 0 : firstMoved)
            let oldCurvedLength = curved.length
            // A curve between two samples looks at one sample before and two
            // after them.
            let firstCurved = curve(fromSegment: fresh ? 0 : max(firstMoved - 3, 0))
            let keptResampled = fresh ? 0 : resampled.keep(through: curved, firstChanged: firstCurved)
            resampled.extend(curved, corners: curvedCorners)
            // A vertex's radius looks at speeds up to 4 points after it,
            // smoothed over 3 more; its taper at the distance to the end.
            let untapered = min(oldCurvedLength, curved.length) - response.taperLength(weight: weight) - InkLine.spacing
            let firstVertex = fresh ? 0 : max(min(keptResampled - 7, resampled.firstIndex(beyond: untapered)), 0)
            placeVertices(from: firstVertex, halfWeight: halfWeight)
            unchangedVertices = firstVertex
        }

        private mutating func forgetSteps() {
            corners = []
            moved = RawPath()
            isCorner = []
            curved = RawPath()
            curvedEnds = []
            curvedCorners = []
            resampled = ResampledPath()
            baseRadii = []
        }

        /// Keeps the corners no sample since `oldCount` can change (a corner
        /// is settled two reaches before the old end: its rivals lie
        /// within one reach, and each of them looks one reach ahead) and
        /// finds the rest; the first sample whose place or corner may have
        /// changed.
        private mutating func findCorners(after cutoff: Float, from oldCount: Int) -> Int {
            var firstChanged = oldCount
            while let last = corners.last, raw.distances[last.index] > cutoff {
                firstChanged = min(firstChanged, last.index)
                corners.removeLast()
            }
            let found = raw.corners(after: cutoff)
            if let first = found.first { firstChanged = min(firstChanged, first.index) }
            corners += found
            return firstChanged
        }

        /// Each corner sample moved to its apex, so that the distance along
        /// the path runs through the turn the hand made (a slow device's
        /// chords cut the turn short), at the time the hand most likely
        /// passed it: between the sample and its neighbour on the apex's
        /// side, in proportion to the distances. An apex at a neighbouring
        /// sample stays at the sample.
        private mutating func moveCorners(from first: Int) {
            moved.removeLast(moved.count - first)
            isCorner.removeLast(isCorner.count - first)
            if first == 0 { moved.reserveCapacity(raw.count) }
            var position = corners.count
            while position > 0, corners[position - 1].index >= first { position -= 1 }
            for index in first..<raw.count {
                var here = raw.point(index)
                var time = raw.times[index]
                let corner = position < corners.count && corners[position].index == index
                if corner {
                    let apex = corners[position].apex
                    position += 1
                    if apex != raw.point(index - 1), apex != raw.point(index + 1) {
                        let incoming = here - raw.point(index - 1)
                        let shift = apex - here
                        let other = shift.dx * incoming.dx + shift.dy * incoming.dy > 0 ? index + 1 : index - 1
                        let toApex = (shift.dx * shift.dx + shift.dy * shift.dy).squareRoot()
                        let beyond = raw.point(other) - apex
                        let toOther = (beyond.dx * beyond.dx + beyond.dy * beyond.dy).squareRoot()
                        time = raw.times[index] + (raw.times[other] - raw.times[index]) * (toApex / (toApex + toOther))
                        here = apex
                    }
                }
                var distance: Float = 0
                if index > 0 {
                    let dx = here.x - moved.xs[index - 1]
                    let dy = here.y - moved.ys[index - 1]
                    distance = moved.distances[index - 1] + (dx * dx + dy * dy).squareRoot()
                }
                moved.xs.append(here.x)
                moved.ys.append(here.y)
                moved.times.append(time)
                moved.pressures.append(raw.pressures[index])
                moved.distances.append(distance)
                isCorner.append(corner)
            }
        }

        /// The path with a curve through the samples between corners (see
        /// `RawPath`), from the start of segment `first` on; the first
        /// index of `curved` that changed. Next to a corner the path stays
        /// straight, and a curve takes no direction from across one: a
        /// curve there would round off the turn the corner keeps.
        private mutating func curve(fromSegment first: Int) -> Int {
            if first == 0 {
                curved = RawPath()
                curvedEnds = []
                curvedCorners = []
                // Curves between close samples add a point a unit.
                curved.reserveCapacity(moved.count * 2)
                curvedEnds.reserveCapacity(moved.count)
                curved.append(x: moved.xs[0], y: moved.ys[0], time: moved.times[0], pressure: moved.pressures[0])
                curvedEnds.append(0)
            } else {
                let kept = curvedEnds[first] + 1
                curved.removeLast(curved.count - kept)
                curvedEnds.removeLast(curvedEnds.count - first - 1)
                while let last = curvedCorners.last, last.index >= kept { curvedCorners.removeLast() }
            }
            let firstChanged = curved.count
            var cornerPosition = corners.count
            while cornerPosition > 0, corners[cornerPosition - 1].index > first { cornerPosition -= 1 }
            let last = moved.count - 1
            for index in first..<last {
                let p1 = moved.point(index)
                let p2 = moved.point(index + 1)
                let gap = p2 - p1
                let length = (gap.dx * gap.dx + gap.dy * gap.dy).squareRoot()
                let near = length <= InkLine.curvedGap
                let steps = min(max(Int(min(length, InkLine.curvedGap)), 1), Int(InkLine.curvedGap))
                if steps > 1 {
                    var curve: CentripetalCurve?
                    if near, !isCorner[index], !isCorner[index + 1] {
                        // Beyond an end or a corner, the point the segment points to.
                        let p0 = index > 0 && !isCorner[index - 1] ? moved.point(index - 1) : p1 + (p1 - p2)
                        let p3 = index + 1 < last && !isCorner[index + 2] ? moved.point(index + 2) : p2 + (p2 - p1)
                        curve = CentripetalCurve(p0, p1, p2, p3)
                    }
                    let speeds = moved.speeds(at: index, lookingAhead: near)
                    let timing = SegmentTiming(
                        distance: moved.distances[index + 1] - moved.distances[index],
                        elapsed: moved.times[index + 1] - moved.times[index],
                        startSpeed: speeds.start, endSpeed: speeds.end)
                    for step in 1..<steps {
                        let fraction = Float(step) / Float(steps)
                        let point = curve?.point(at: fraction) ?? p1 + gap * fraction
                        curved.append(
                            x: point.x, y: point.y, time: moved.times[index] + timing.elapsed(at: fraction),
                            pressure: moved.pressures[index] + (moved.pressures[index + 1] - moved.pressures[index]) * fraction)
                    }
                }
                curved.append(
                    x: moved.xs[index + 1], y: moved.ys[index + 1], time: moved.times[index + 1],
                    pressure: moved.pressures[index + 1])
                curvedEnds.append(curved.count - 1)
                if isCorner[index + 1] {
                    while corners[cornerPosition].index < index + 1 { cornerPosition += 1 }
                    curvedCorners.append(Corner(index: curved.count - 1, apex: corners[cornerPosition].apex))
                }
            }
            return firstChanged
        }

        /// The vertices from `first` on: positions smoothed within their
        /// stretch, radii from speed and pressure, smoothed and tapered.
        private mutating func placeVertices(from first: Int, halfWeight: Float) {
            let count = resampled.count
            let last = count - 1
            let firstBase = max(first - InkLine.smoothingReach, 0)
            baseRadii.removeLast(baseRadii.count - min(firstBase, baseRadii.count))
            if baseRadii.isEmpty { baseRadii.reserveCapacity(count) }
            for index in baseRadii.count..<count {
                let low = max(0, index - InkLine.speedReach)
                let high = min(last, index + InkLine.speedReach)
                let elapsed = resampled.times[high] - resampled.times[low]
                let speed = elapsed > 0 ? (resampled.distances[high] - resampled.distances[low]) / elapsed : 0
                baseRadii.append(
                    halfWeight * response.speedFactor(speed) * response.pressureFactor(resampled.pressures[index]))
            }
            line.length = curved.length
            line.vertices.removeLast(line.vertices.count - min(first, line.vertices.count))
            if line.vertices.isEmpty { line.vertices.reserveCapacity(count) }
            var stretch = resampled.stretch(containing: first)
            for index in line.vertices.count..<count {
                while resampled.stretches[stretch].end < index { stretch += 1 }
                let (start, end) = resampled.stretches[stretch]
                var point = Point(x: resampled.xs[index], y: resampled.ys[index])
                if index > start, index < end {
                    let reach = min(InkLine.smoothingReach, index - start, end - index)
                    point = Point(
                        x: Binomial.average(resampled.xs, around: index, reach: reach),
                        y: Binomial.average(resampled.ys, around: index, reach: reach))
                }
                let reach = min(InkLine.smoothingReach, index, last - index)
                let smoothed = reach > 0 ? Binomial.average(baseRadii, around: index, reach: reach) : baseRadii[index]
                let distance = resampled.distances[index]
                let tapered =
                    smoothed * response.taperFactor(distance: distance, weight: weight)
                    * response.taperFactor(distance: curved.length - distance, weight: weight)
                line.vertices.append(
                    Vertex(
                        point: point, radius: max(tapered, InkLine.smallestRadius), distance: distance,
                        isCorner: resampled.isCorner[index]))
            }
        }
    }
}
