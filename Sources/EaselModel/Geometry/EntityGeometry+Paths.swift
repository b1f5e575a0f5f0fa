/// What a path drawn across the canvas reaches: the object eraser's wide
/// path touches entities, the lasso's closed one surrounds them.
extension Document {
    /// The visible entities a path `radius` wide on each side touches, by
    /// their real geometry: an emoji's, shape's, image's or text's box
    /// rotated and scaled as it is drawn, a stroke's ink (its smoothed line
    /// at its width, not its box). In z-order, bottom first.
    public func entities(touchedBy path: [Point], radius: Float) -> [EntityID] {
        guard let pathBox = Rect(enclosing: path), radius.isFinite, radius >= 0 else { return [] }
        let reach = Rect(
            minX: pathBox.minX - radius, minY: pathBox.minY - radius, maxX: pathBox.maxX + radius,
            maxY: pathBox.maxY + radius)
        var touched: [EntityID] = []
        for slot in zOrderedSlots {
            let record = records[Int(slot)]
            guard !record.isEraser, let geometry = geometry(of: record), geometry.documentBounds.intersects(reach),
                geometry.touches(path, radius: radius, ink: record.ink)
            else { continue }
            touched.append(record.id)
        }
        return touched
    }

    /// The visible entities whose centre (the middle of their box, where
    /// they turn) the closed path surrounds, by the even-odd rule: an
    /// entity the line crosses is in when its centre is. In z-order,
    /// bottom first. A path of fewer than three points surrounds nothing.
    public func entities(insideLasso path: [Point]) -> [EntityID] {
        guard path.count > 2, let pathBox = Rect(enclosing: path) else { return [] }
        var inside: [EntityID] = []
        for slot in zOrderedSlots {
            let record = records[Int(slot)]
            guard !record.isEraser, let geometry = geometry(of: record) else { continue }
            let centre = geometry.documentPoint(fromLocal: geometry.localBox.center)
            if pathBox.contains(centre), PathGeometry.surrounds(path, centre) { inside.append(record.id) }
        }
        return inside
    }
}

extension EntityRecord {
    /// A stroke's samples, tool and weight: what its ink is made from.
    var ink: (samples: [StrokeSample], tool: StrokeTool, weight: Float)? {
        guard kind == .stroke else { return nil }
        return (strokeSamples.samples, tool.value, weight.value)
    }
}

extension EntityGeometry {
    /// Whether a path `radius` wide on each side (document units) reaches
    /// the entity: worked in the entity's own frame, where its box is
    /// upright and its ink where it was drawn.
    func touches(
        _ path: [Point], radius: Float, ink: (samples: [StrokeSample], tool: StrokeTool, weight: Float)?
    ) -> Bool {
        guard scale != 0 else { return false }
        var local: [Point] = []
        local.reserveCapacity(path.count)
        for point in path {
            guard let mapped = localPoint(fromDocument: point) else { return false }
            local.append(mapped)
        }
        let reach = radius / abs(scale)
        if let ink {
            let line = InkLine(samples: ink.samples, tool: ink.tool, weight: ink.weight).vertices
            return PathGeometry.reaches(local, reach, line)
        }
        return PathGeometry.reaches(local, reach, localBox)
    }
}

/// Distances between paths, segments and boxes.
enum PathGeometry {
    /// Whether the path comes within `reach` of the ink: of a disc at a
    /// vertex, or of the band between two (its radius the larger of
    /// theirs: a conservative edge of at most the radius change over one
    /// spacing).
    static func reaches(_ path: [Point], _ reach: Float, _ ink: [InkLine.Vertex]) -> Bool {
        guard !ink.isEmpty else { return false }
        for pathIndex in path.indices {
            let a = path[pathIndex]
            let b = pathIndex + 1 < path.count ? path[pathIndex + 1] : a
            for index in ink.indices {
                let vertex = ink[index]
                let next = index + 1 < ink.count ? ink[index + 1] : vertex
                let limit = reach + max(vertex.radius, next.radius)
                if segmentDistance(a, b, vertex.point, next.point) <= limit { return true }
            }
        }
        return false
    }

    /// Whether the path comes within `reach` of the box (inside counts).
    static func reaches(_ path: [Point], _ reach: Float, _ box: Rect) -> Bool {
        let corners = box.corners
        for index in path.indices {
            let a = path[index]
            let b = index + 1 < path.count ? path[index + 1] : a
            if box.contains(a) || box.contains(b) { return true }
            for side in 0..<4 where segmentDistance(a, b, corners[side], corners[(side + 1) % 4]) <= reach {
                return true
            }
        }
        return false
    }

    /// The shortest distance between segments `ab` and `cd` (0 when they
    /// cross).
    static func segmentDistance(_ a: Point, _ b: Point, _ c: Point, _ d: Point) -> Float {
        if crosses(a, b, c, d) { return 0 }
        return min(
            min(pointDistance(a, c, d), pointDistance(b, c, d)), min(pointDistance(c, a, b), pointDistance(d, a, b)))
    }

    static func pointDistance(_ point: Point, _ start: Point, _ end: Point) -> Float {
        let segment = end - start
        let lengthSquared = segment.dx * segment.dx + segment.dy * segment.dy
        guard lengthSquared > 0 else { return (point - start).length }
        let toPoint = point - start
        let along = max(0, min(1, (toPoint.dx * segment.dx + toPoint.dy * segment.dy) / lengthSquared))
        return (point - (start + segment * along)).length
    }

    /// Whether the segments cross at a point inside both.
    static func crosses(_ a: Point, _ b: Point, _ c: Point, _ d: Point) -> Bool {
        func side(_ p: Point, _ q: Point, _ r: Point) -> Float {
            (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
        }
        let d1 = side(c, d, a)
        let d2 = side(c, d, b)
        let d3 = side(a, b, c)
        let d4 = side(a, b, d)
        return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
    }

    /// Even-odd: whether a ray from the point crosses the closed path's
    /// edges an odd number of times.
    static func surrounds(_ path: [Point], _ point: Point) -> Bool {
        var inside = false
        var previous = path[path.count - 1]
        for current in path {
            if (current.y > point.y) != (previous.y > point.y) {
                let crossingX = previous.x + (point.y - previous.y) / (current.y - previous.y) * (current.x - previous.x)
                if point.x < crossingX { inside.toggle() }
            }
            previous = current
        }
        return inside
    }
}
