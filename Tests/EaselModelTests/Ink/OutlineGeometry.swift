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

    /// An ink line as plain numbers, for the distance checks (SIMD types
    /// are slow in debug builds).
    struct Ink {
        var xs: [Double] = []
        var ys: [Double] = []
        var radii: [Double] = []

        init(_ line: InkLine) {
            for vertex in line.vertices {
                xs.append(Double(vertex.point.x))
                ys.append(Double(vertex.point.y))
                radii.append(Double(vertex.radius))
            }
        }

        /// How far a point lies outside the ink (negative inside): the
        /// union of the discs at the vertices and the tapered bands between.
        func distance(x: Double, y: Double) -> Double {
            var best = Double.infinity
            for index in xs.indices {
                let ax = xs[index], ay = ys[index], ra = radii[index]
                let toA = ((x - ax) * (x - ax) + (y - ay) * (y - ay)).squareRoot()
                best = min(best, toA - ra)
                guard index + 1 < xs.count else { continue }
                let sx = xs[index + 1] - ax, sy = ys[index + 1] - ay
                let rb = radii[index + 1]
                let lengthSquared = sx * sx + sy * sy
                // Nothing on this segment can come closer than this.
                if toA - lengthSquared.squareRoot() - max(ra, rb) > best || lengthSquared == 0 { continue }
                let along = max(0, min(1, ((x - ax) * sx + (y - ay) * sy) / lengthSquared))
                let nx = ax + sx * along - x, ny = ay + sy * along - y
                best = min(best, (nx * nx + ny * ny).squareRoot() - (ra + (rb - ra) * along))
            }
            return best
        }

        /// Points on the ink's edge: around each vertex's disc, kept where
        /// no other part of the ink covers them.
        func edgePoints(steps: Int) -> [(x: Double, y: Double)] {
            var points: [(x: Double, y: Double)] = []
            for index in xs.indices {
                for step in 0..<steps {
                    let angle = 2 * Double.pi * Double(step) / Double(steps)
                    let x = xs[index] + cos(angle) * radii[index]
                    let y = ys[index] + sin(angle) * radii[index]
                    if distance(x: x, y: y) > -0.01 { points.append((x, y)) }
                }
            }
            return points
        }
    }
}
