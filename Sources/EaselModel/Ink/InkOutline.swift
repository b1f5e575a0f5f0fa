/// A stroke's outline: the shape to fill, as pieces that are each a simple
/// polygon (its sides never cross), all wound the same way, so filling
/// them together with the nonzero rule paints their union once.
///
/// A run is a stretch of the centre line drawn as one polygon: its left
/// side forward, a half circle round the end, its right side back and a
/// half circle round the start. A run ends, and the next begins at the same
/// vertex, wherever one polygon could fold over itself: at a corner, a turn
/// sharper than 30°, a bend whose inner side would fold (a radius of
/// curvature near the half width), a steep change of width, after 80° of
/// turning in all, and every 32 segments. Two runs meet in their
/// overlapping round ends: a round join. Long runs are what keep the
/// outline small; their limits are what keep each one simple.
public struct InkOutline: Hashable, Sendable {
    public enum Piece: Hashable, Sendable {
        case dot(center: Point, radius: Float)
        case run(InkRun)
        /// A filled head, corners in the outline's winding: one side of
        /// the base, the tip, the other side.
        case arrowhead(Point, Point, Point)
    }

    public internal(set) var pieces: [Piece] = []

    /// A run's sides may turn by at most 30° at a vertex (cos 30°).
    static let joinCosine: Float = 0.866_025_4
    /// How far, as a fraction of a neighbouring segment, a join may pull
    /// the inner side back along the line.
    static let foldShare: Float = 0.25
    /// How much the radius may change along a segment inside a run, as a
    /// fraction of the segment's length.
    static let radiusSlope: Float = 0.4
    /// A run turns by at most about 80° in all (in radians, measured as the
    /// sum of twice the sine of each half turn, which never overestimates).
    static let runTurn: Float = 1.4
    static let runSegments = 32

    public init(_ line: InkLine, endCap: EndCap = .round, weight: Float) {
        var builder = Builder(endCap: endCap, weight: weight)
        builder.update(line, unchangedVertices: 0)
        self = builder.outline
    }

    init() {}

    /// The head at the last vertex, pointing along the line as it arrives
    /// (from the first vertex at least half a head back), `max(8, 3 ×
    /// weight)` long and half as wide.
    static func arrowhead(_ vertices: [InkLine.Vertex], weight: Float) -> Piece? {
        guard let tip = vertices.last?.point else { return nil }
        let size = max(8, weight * 3)
        var from = vertices[0].point
        for vertex in vertices.reversed() {
            let offset = tip - vertex.point
            if offset.dx * offset.dx + offset.dy * offset.dy >= size * size / 4 {
                from = vertex.point
                break
            }
        }
        guard let along = (tip - from).unit else { return nil }
        let across = along.leftNormal
        let base = tip + along * -size
        return .arrowhead(base + across * (size / 2), tip, base + across * (-size / 2))
    }
}

/// A run: `left[i]` and `right[i]` are the sides at its i-th vertex.
public struct InkRun: Hashable, Sendable {
    public var left: [Point]
    public var right: [Point]
    public var start: Point
    public var startRadius: Float
    public var end: Point
    public var endRadius: Float
}

extension Vector {
    /// The vector scaled to length 1; nil for the zero vector.
    var unit: Vector? {
        let length = (dx * dx + dy * dy).squareRoot()
        guard length > 0, length.isFinite else { return nil }
        return self / length
    }

    /// The vector turned a quarter: (−dy, dx).
    var leftNormal: Vector { Vector(dx: -dy, dy: dx) }
}

extension InkOutline {
    /// The outline of a stroke drawn with `weight`: its ink line, then the
    /// pieces.
    public init(_ stroke: StrokeContent, weight: Float) {
        self.init(InkLine(samples: stroke.samples, tool: stroke.tool, weight: weight), endCap: stroke.endCap, weight: weight)
    }
}
