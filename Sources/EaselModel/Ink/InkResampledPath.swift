/// The path resampled every `spacing` units from each corner (and from the
/// start), so a point, once made, stays where it is as the path grows;
/// corners and the two ends are kept as they were sampled. Positions here
/// are before smoothing.
struct ResampledPath {
    var xs: [Float] = []
    var ys: [Float] = []
    var times: [Float] = []
    var pressures: [Float] = []
    var distances: [Float] = []
    var isCorner: [Bool] = []
    /// For a corner or an end, the index of the path's point it is; -1
    /// for a point between them.
    var sources: [Int] = []
    /// Where each stretch between corners starts and ends, as indices.
    var stretches: [(start: Int, end: Int)] = []

    var count: Int { xs.count }

    /// Keeps the points that the path's points before `firstChanged` alone
    /// decide: a point between corners lies on a segment that ends before
    /// it, and is at least half a spacing before the end of its stretch
    /// (it could be the last point of a stretch that now ends sooner);
    /// a corner or an end, if its point is kept. How many are kept.
    mutating func keep(through path: RawPath, firstChanged: Int) -> Int {
        let limit = path.distances[firstChanged - 1]
        var kept = count
        while kept > 0 {
            let index = kept - 1
            let stays =
                sources[index] >= 0
                ? sources[index] < firstChanged : distances[index] + InkLine.spacing / 2 <= limit
            if stays { break }
            kept -= 1
        }
        let removed = count - kept
        xs.removeLast(removed)
        ys.removeLast(removed)
        times.removeLast(removed)
        pressures.removeLast(removed)
        distances.removeLast(removed)
        isCorner.removeLast(removed)
        sources.removeLast(removed)
        while let last = stretches.last, last.end >= kept { stretches.removeLast() }
        return kept
    }

    /// Resamples the path from the end of what is kept: the stretch under
    /// way goes on where it stopped, then each stretch to the next corner
    /// and the last one to the end.
    mutating func extend(_ path: RawPath, corners: [Corner]) {
        let spacing = InkLine.spacing
        if count == 0 { appendSample(path, 0, apex: nil) }
        var stretchStart = stretches.last?.end ?? 0
        var from = sources[stretchStart]
        var step = Float(count - stretchStart)
        var cornerIndex = corners.count
        while cornerIndex > 0, corners[cornerIndex - 1].index > from { cornerIndex -= 1 }
        // Reserved only when starting: reserving more at every sample would
        // copy the arrays each time instead of growing them geometrically.
        if count == 1 {
            let estimate = Int(path.length / spacing) + corners.count + 2
            xs.reserveCapacity(estimate)
            ys.reserveCapacity(estimate)
            times.reserveCapacity(estimate)
            pressures.reserveCapacity(estimate)
            distances.reserveCapacity(estimate)
            isCorner.reserveCapacity(estimate)
            sources.reserveCapacity(estimate)
        }
        while true {
            let to = cornerIndex < corners.count ? corners[cornerIndex].index : path.count - 1
            // The segment the next point lies on is at or after this one.
            var segment = max(from, path.firstIndex(reaching: path.distances[from] + step * spacing) - 1)
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
                sources.append(-1)
                step += 1
            }
            appendSample(path, to, apex: cornerIndex < corners.count ? corners[cornerIndex].apex : nil)
            stretches.append((stretchStart, count - 1))
            guard cornerIndex < corners.count else { return }
            cornerIndex += 1
            stretchStart = count - 1
            from = to
            step = 1
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
        sources.append(index)
    }

    /// The first point farther along than `distance`; `count` if none.
    func firstIndex(beyond distance: Float) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if distances[middle] <= distance { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The stretch that holds point `index` (the earlier of two where a
    /// corner joins them).
    func stretch(containing index: Int) -> Int {
        var low = 0
        var high = stretches.count - 1
        while low < high {
            let middle = (low + high) / 2
            if stretches[middle].end < index { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
