import EaselModel
import Foundation

/// Test-side geometry of ink outlines, in Double: pieces as polygons (arcs
/// as many short edges, drawn the way SVG's sweep flag 0 draws them), and
/// the checks the tests make on them.
enum OutlineGeometry {
    typealias P = SIMD2<Double>

    static func p(_ point: Point) -> P { P(Double(point.x), Double(point.y)) }

    /// The half circle from `from` about `center` with sweep flag 0: the
    /// angle (as atan2 measures it in these coordinates) decreasing by π.
    static func halfCircle(from: P, center: P, steps: Int = 12) -> [P] {
        let offset = from - center
        let radius = (offset * offset).sum().squareRoot()
        let start = atan2(offset.y, offset.x)
        return (1..<steps).map { step in
            let angle = start - Double.pi * Double(step) / Double(steps)
            return center + P(cos(angle), sin(angle)) * radius
        }
    }

    static func polygon(_ piece: InkOutline.Piece) -> [P] {
        switch piece {
        case .dot(let center, let radius):
            let top = p(center) + P(0, Double(radius))
            let bottom = p(center) - P(0, Double(radius))
            return [top] + halfCircle(from: top, center: p(center)) + [bottom]
                + halfCircle(from: bottom, center: p(center))
        case .run(let run):
            let left = run.left.map(p)
            let right = run.right.map(p)
            return left + halfCircle(from: left[left.count - 1], center: p(run.end)) + right.reversed()
                + halfCircle(from: right[0], center: p(run.start))
        case .arrowhead(let one, let tip, let other):
            return [p(one), p(tip), p(other)]
        }
    }

    /// Twice the signed area (positive when the angle increases along it).
    static func signedArea(_ polygon: [P]) -> Double {
        var sum = 0.0
        for index in polygon.indices {
            let a = polygon[index]
            let b = polygon[(index + 1) % polygon.count]
            sum += a.x * b.y - b.x * a.y
        }
        return sum
    }

    /// The first pair of edges that cross, if any. Edges that share a
    /// corner do not count; nor do touches closer than `tolerance`.
    static func crossing(_ polygon: [P], tolerance: Double = 1e-4) -> (Int, Int)? {
        let count = polygon.count
        guard count > 3 else { return nil }
        func orientation(_ a: P, _ b: P, _ c: P) -> Double {
            (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
        }
        for i in 0..<count {
            let a = polygon[i]
            let b = polygon[(i + 1) % count]
            let minX = min(a.x, b.x), maxX = max(a.x, b.x), minY = min(a.y, b.y), maxY = max(a.y, b.y)
            for j in stride(from: i + 2, to: count, by: 1) where !(i == 0 && j == count - 1) {
                let c = polygon[j]
                let d = polygon[(j + 1) % count]
                if max(c.x, d.x) < minX || min(c.x, d.x) > maxX || max(c.y, d.y) < minY || min(c.y, d.y) > maxY {
                    continue
                }
                let lengthAB = ((b - a) * (b - a)).sum().squareRoot()
                let lengthCD = ((d - c) * (d - c)).sum().squareRoot()
                let o1 = orientation(a, b, c) / max(lengthAB, 1e-12)
                let o2 = orientation(a, b, d) / max(lengthAB, 1e-12)
                let o3 = orientation(c, d, a) / max(lengthCD, 1e-12)
                let o4 = orientation(c, d, b) / max(lengthCD, 1e-12)
                if ((o1 > tolerance && o2 < -tolerance) || (o1 < -tolerance && o2 > tolerance))
                    && ((o3 > tolerance && o4 < -tolerance) || (o3 < -tolerance && o4 > tolerance))
                {
                    return (i, j)
                }
            }
        }
        return nil
    }

    /// The polygon of a piece with its half circles as chords at most
    /// `tolerance` inside the true arcs the SVG draws.
    static func polygon(_ piece: InkOutline.Piece, tolerance: Double) -> [P] {
        func steps(_ radius: Float) -> Int {
            // A chord over an angle θ falls r θ² / 8 short of the arc.
            max(12, Int((Double.pi * (Double(radius) / (8 * tolerance)).squareRoot()).rounded(.up)))
        }
        switch piece {
        case .dot(let center, let radius):
            let top = p(center) + P(0, Double(radius))
            let bottom = p(center) - P(0, Double(radius))
            return [top] + halfCircle(from: top, center: p(center), steps: steps(radius)) + [bottom]
                + halfCircle(from: bottom, center: p(center), steps: steps(radius))
        case .run(let run):
            let left = run.left.map(p)
            let right = run.right.map(p)
            return left + halfCircle(from: left[left.count - 1], center: p(run.end), steps: steps(run.endRadius))
                + right.reversed() + halfCircle(from: right[0], center: p(run.start), steps: steps(run.startRadius))
        case .arrowhead(let one, let tip, let other):
            return [p(one), p(tip), p(other)]
        }
    }

    /// An outline as the renderer fills it: its pieces filled together with
    /// the nonzero rule. The pieces are simple and wound alike, so that
    /// paints their union; what the eye sees is the union's boundary, and
    /// the seams where pieces overlap are not part of it.
    ///
    /// The boundary is kept as short segments: every piece's edges cut into
    /// lengths of at most `step`, kept where the points just outside them
    /// lie inside no other piece (just outside, so that an edge another
    /// piece's edge runs along is judged by the side the ink is not on),
    /// and cut where an edge goes under another piece. Flat arrays of
    /// numbers and unsafe buffers in the loops: debug builds are otherwise
    /// too slow for the corpus.
    struct Filled {
        /// The boundary's segments, four numbers each: x0 y0 x1 y1.
        private(set) var segments: [Double] = []
        /// Segment indices by grid cell (`cell` units square), row by row,
        /// for the distance queries.
        private var cells: [[Int32]] = []
        private var originX = 0.0, originY = 0.0
        private var columns = 0, rows = 0
        static let cell = 1.0
        static let outside = 1e-6

        var segmentCount: Int { segments.count / 4 }

        init(_ outline: InkOutline, tolerance: Double = 0.005, step: Double = 0.1) {
            self.init(polygons: outline.pieces.map { polygon($0, tolerance: tolerance) }, step: step)
        }

        init(polygons: [[P]], step: Double) {
            // Every edge as x0 y0 x1 y1; each piece's box, the side its
            // outside is on, and its edges by band of height 1 for the
            // winding number's horizontal ray.
            var edges: [Double] = []
            var lowY = Double.infinity, highY = -Double.infinity
            for polygon in polygons {
                for index in polygon.indices {
                    let a = polygon[index], b = polygon[(index + 1) % polygon.count]
                    edges.append(a.x)
                    edges.append(a.y)
                    edges.append(b.x)
                    edges.append(b.y)
                    lowY = min(lowY, a.y)
                    highY = max(highY, a.y)
                }
            }
            guard !edges.isEmpty else { return }
            let bottom = lowY
            func band(_ y: Double) -> Int { Int((y - bottom).rounded(.down)) }
            var pieces: [Piece] = []
            var first = 0
            for polygon in polygons {
                var piece = Piece(
                    edges: first..<(first + polygon.count),
                    // Outward is to the left of each edge where the area is
                    // negative (the outline's own winding), to the right if not.
                    outwardSign: signedArea(polygon) < 0 ? 1 : -1)
                for point in polygon {
                    piece.lowX = min(piece.lowX, point.x)
                    piece.highX = max(piece.highX, point.x)
                    piece.lowY = min(piece.lowY, point.y)
                    piece.highY = max(piece.highY, point.y)
                }
                piece.firstBand = band(piece.lowY)
                piece.bands = [[Int32]](repeating: [], count: band(piece.highY) - piece.firstBand + 1)
                for edge in piece.edges {
                    let y0 = edges[edge * 4 + 1], y1 = edges[edge * 4 + 3]
                    for index in band(min(y0, y1))...band(max(y0, y1)) {
                        piece.bands[index - piece.firstBand].append(Int32(edge))
                    }
                }
                pieces.append(piece)
                first += polygon.count
            }
            var kept: [Double] = []
            edges.withUnsafeBufferPointer { edges in
                /// Whether a point lies inside a piece: its winding number
                /// there is not 0.
                func inside(_ x: Double, _ y: Double, _ piece: Piece) -> Bool {
                    guard x >= piece.lowX, x <= piece.highX, y >= piece.lowY, y <= piece.highY else { return false }
                    let index = band(y) - piece.firstBand
                    guard index >= 0, index < piece.bands.count else { return false }
                    var winding = 0
                    piece.bands[index].withUnsafeBufferPointer { band in
                        for edge32 in band {
                            let edge = Int(edge32)
                            let ax = edges[edge * 4], ay = edges[edge * 4 + 1]
                            let bx = edges[edge * 4 + 2], by = edges[edge * 4 + 3]
                            let side = (bx - ax) * (y - ay) - (x - ax) * (by - ay)
                            if ay <= y {
                                if by > y && side > 0 { winding += 1 }
                            } else if by <= y && side < 0 {
                                winding -= 1
                            }
                        }
                    }
                    return winding != 0
                }
                for (index, piece) in pieces.enumerated() {
                    /// Whether another piece covers a point.
                    func covered(_ x: Double, _ y: Double) -> Bool {
                        // Neighbours first: they are the likeliest to.
                        for offset in 1..<max(pieces.count, 1) {
                            if index >= offset, inside(x, y, pieces[index - offset]) { return true }
                            if index + offset < pieces.count, inside(x, y, pieces[index + offset]) { return true }
                        }
                        return false
                    }
                    for edge in piece.edges {
                        let ax = edges[edge * 4], ay = edges[edge * 4 + 1]
                        let bx = edges[edge * 4 + 2], by = edges[edge * 4 + 3]
                        let length = ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).squareRoot()
                        guard length > 0 else { continue }
                        let sign = piece.outwardSign * Self.outside / length
                        let nx = -(by - ay) * sign, ny = (bx - ax) * sign
                        func coveredAt(_ t: Double) -> Bool { covered(ax + (bx - ax) * t + nx, ay + (by - ay) * t + ny) }
                        func keep(_ t0: Double, _ t1: Double) {
                            kept.append(ax + (bx - ax) * t0)
                            kept.append(ay + (by - ay) * t0)
                            kept.append(ax + (bx - ax) * t1)
                            kept.append(ay + (by - ay) * t1)
                        }
                        let parts = max(1, Int((length / step).rounded(.up)))
                        var startCovered = coveredAt(0)
                        for part in 0..<parts {
                            let t0 = Double(part) / Double(parts), t1 = Double(part + 1) / Double(parts)
                            let endCovered = coveredAt(t1)
                            defer { startCovered = endCovered }
                            if !startCovered && !endCovered { keep(t0, t1) }
                            guard startCovered != endCovered else { continue }
                            // Where the edge goes under another piece or
                            // comes out, found by halving: a gap there would
                            // read as a distance.
                            var low = t0, high = t1
                            for _ in 0..<16 {
                                let middle = (low + high) / 2
                                if coveredAt(middle) == startCovered { low = middle } else { high = middle }
                            }
                            if startCovered { keep(high, t1) } else { keep(t0, low) }
                        }
                    }
                }
            }
            segments = kept
            guard !segments.isEmpty else { return }
            var lowX = Double.infinity, highX = -Double.infinity
            for segment in 0..<segmentCount {
                lowX = min(lowX, segments[segment * 4])
                highX = max(highX, segments[segment * 4])
            }
            originX = lowX
            originY = lowY
            columns = Int(((highX - lowX) / Self.cell).rounded(.down)) + 1
            rows = Int(((highY - lowY) / Self.cell).rounded(.down)) + 1
            cells = [[Int32]](repeating: [], count: columns * rows)
            for segment in 0..<segmentCount {
                let (x, y) = middle(segment)
                let (column, row) = cellOf(x, y)
                cells[row * columns + column].append(Int32(segment))
            }
        }

        /// A piece's edges (indices), box, outward side and edges by band.
        private struct Piece {
            var edges: Range<Int>
            var outwardSign: Double
            var lowX = Double.infinity, highX = -Double.infinity
            var lowY = Double.infinity, highY = -Double.infinity
            var firstBand = 0
            var bands: [[Int32]] = []
        }

        private func cellOf(_ x: Double, _ y: Double) -> (Int, Int) {
            let column = Int(((x - originX) / Self.cell).rounded(.down))
            let row = Int(((y - originY) / Self.cell).rounded(.down))
            return (min(max(column, 0), columns - 1), min(max(row, 0), rows - 1))
        }

        /// The middle of a boundary segment.
        func middle(_ segment: Int) -> (x: Double, y: Double) {
            let x: Double = (segments[segment * 4] + segments[segment * 4 + 2]) / 2
            let y: Double = (segments[segment * 4 + 1] + segments[segment * 4 + 3]) / 2
            return (x, y)
        }

        /// How far a point lies from the boundary, or `limit` when farther;
        /// or, as soon as some segment is found within `enough`, that
        /// segment's distance.
        func distance(toBoundaryFrom x: Double, _ y: Double, limit: Double, enough: Double = 0) -> Double {
            guard !cells.isEmpty else { return limit }
            var best = limit
            let (column, row) = cellOf(x, y)
            let reach = Int((limit / Self.cell).rounded(.up)) + 1
            segments.withUnsafeBufferPointer { segments in
                var ring = 0
                while ring <= reach {
                    for r in max(row - ring, 0)...min(row + ring, rows - 1) {
                        for c in max(column - ring, 0)...min(column + ring, columns - 1)
                        where abs(r - row) == ring || abs(c - column) == ring {
                            cells[r * columns + c].withUnsafeBufferPointer { cell in
                                for segment32 in cell {
                                    let segment = Int(segment32) * 4
                                    let ax = segments[segment], ay = segments[segment + 1]
                                    let sx = segments[segment + 2] - ax, sy = segments[segment + 3] - ay
                                    let lengthSquared = sx * sx + sy * sy
                                    let projected = ((x - ax) * sx + (y - ay) * sy) / lengthSquared
                                    let along = lengthSquared > 0 ? max(0, min(1, projected)) : 0
                                    let dx = ax + sx * along - x, dy = ay + sy * along - y
                                    best = min(best, (dx * dx + dy * dy).squareRoot())
                                }
                            }
                        }
                    }
                    // A segment in a farther ring has its middle at least
                    // `ring` cells from the point (a point outside the grid
                    // is farther still), and its ends within half a step.
                    if best <= enough || best <= Double(ring) * Self.cell - 0.5 { break }
                    ring += 1
                }
            }
            return best
        }

        /// The largest distance from a point of either boundary to the
        /// other's, measured at the ends and middle of every segment of each
        /// (so at every corner and wherever an edge goes under another
        /// piece), capped at `limit`: the Hausdorff distance between the
        /// edges of the two drawn shapes, holes' edges included.
        static func farthest(_ a: Filled, _ b: Filled, limit: Double = 5) -> Double {
            // A point with some segment of the other within the worst so far
            // cannot raise it: its search stops there.
            var worst = 0.0
            for (one, other) in [(a, b), (b, a)] {
                for segment in 0..<one.segmentCount {
                    let (x, y) = one.middle(segment)
                    for (px, py) in [
                        (one.segments[segment * 4], one.segments[segment * 4 + 1]), (x, y),
                        (one.segments[segment * 4 + 2], one.segments[segment * 4 + 3]),
                    ] {
                        worst = max(worst, other.distance(toBoundaryFrom: px, py, limit: limit, enough: worst))
                    }
                }
            }
            return worst
        }
    }
}
