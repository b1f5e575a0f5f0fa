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

    public private(set) var pieces: [Piece] = []

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
        let vertices = Self.distinct(line.vertices)
        guard let first = vertices.first else { return }
        guard vertices.count > 1 else {
            pieces = [.dot(center: first.point, radius: first.radius)]
            return
        }
        var builder = RunBuilder(vertices)
        pieces = builder.runs()
        if endCap == .arrow, let head = Self.arrowhead(vertices, weight: weight) { pieces.append(head) }
    }

    /// The vertices without one that repeats the point before it.
    private static func distinct(_ vertices: [InkLine.Vertex]) -> [InkLine.Vertex] {
        var kept: [InkLine.Vertex] = []
        kept.reserveCapacity(vertices.count)
        for vertex in vertices {
            if let last = kept.last, last.point == vertex.point { continue }
            kept.append(vertex)
        }
        return kept
    }

    /// The head at the last vertex, pointing along the line as it arrives
    /// (from the first vertex at least half a head back), `max(8, 3 ×
    /// weight)` long and half as wide.
    private static func arrowhead(_ vertices: [InkLine.Vertex], weight: Float) -> Piece? {
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

/// Walks the centre line once, closing a run wherever a join would not do.
private struct RunBuilder {
    let vertices: [InkLine.Vertex]
    /// Unit direction and length of each segment.
    var directions: [Vector] = []
    var lengths: [Float] = []

    init(_ vertices: [InkLine.Vertex]) {
        self.vertices = vertices
        directions.reserveCapacity(vertices.count - 1)
        lengths.reserveCapacity(vertices.count - 1)
        for index in 0..<(vertices.count - 1) {
            let segment = vertices[index + 1].point - vertices[index].point
            let length = (segment.dx * segment.dx + segment.dy * segment.dy).squareRoot()
            directions.append(segment / length)
            lengths.append(length)
        }
    }

    mutating func runs() -> [InkOutline.Piece] {
        var pieces: [InkOutline.Piece] = []
        let last = vertices.count - 1
        var runStart = 0
        var turned: Float = 0
        var left: [Point] = []
        var right: [Point] = []
        begin(at: 0, left: &left, right: &right)
        for index in 1..<last {
            if let join = join(at: index), index - runStart < InkOutline.runSegments,
                turned + join.turn <= InkOutline.runTurn
            {
                left.append(vertices[index].point + join.offset)
                right.append(vertices[index].point + join.offset * -1)
                turned += join.turn
            } else {
                pieces.append(finish(from: runStart, at: index, left: &left, right: &right))
                runStart = index
                turned = 0
                begin(at: index, left: &left, right: &right)
            }
        }
        pieces.append(finish(from: runStart, at: last, left: &left, right: &right))
        return pieces
    }

    /// A run's first sides, square to the segment leaving the vertex.
    private func begin(at index: Int, left: inout [Point], right: inout [Point]) {
        let offset = directions[index].leftNormal * vertices[index].radius
        left = [vertices[index].point + offset]
        right = [vertices[index].point + offset * -1]
    }

    /// A run's last sides, square to the segment arriving at the vertex.
    private func finish(from start: Int, at index: Int, left: inout [Point], right: inout [Point]) -> InkOutline.Piece {
        let offset = directions[index - 1].leftNormal * vertices[index].radius
        left.append(vertices[index].point + offset)
        right.append(vertices[index].point + offset * -1)
        return .run(
            InkRun(
                left: left, right: right, start: vertices[start].point, startRadius: vertices[start].radius,
                end: vertices[index].point, endRadius: vertices[index].radius))
    }

    /// The mitred side offset at an inner vertex and how much the line
    /// turns there, or nil where a run must end instead.
    private func join(at index: Int) -> (offset: Vector, turn: Float)? {
        let vertex = vertices[index]
        guard !vertex.isCorner else { return nil }
        let incoming = directions[index - 1]
        let outgoing = directions[index]
        guard incoming.dx * outgoing.dx + incoming.dy * outgoing.dy >= InkOutline.joinCosine else { return nil }
        let incomingNormal = incoming.leftNormal
        guard let bisector = (incomingNormal + outgoing.leftNormal).unit else { return nil }
        let halfTurnCosine = bisector.dx * incomingNormal.dx + bisector.dy * incomingNormal.dy
        let halfTurnSine = abs(bisector.dx * incoming.dx + bisector.dy * incoming.dy)
        let miter = vertex.radius / halfTurnCosine
        let shortest = min(lengths[index - 1], lengths[index])
        guard miter * halfTurnSine <= InkOutline.foldShare * shortest,
            abs(vertex.radius - vertices[index - 1].radius) <= InkOutline.radiusSlope * lengths[index - 1],
            abs(vertices[index + 1].radius - vertex.radius) <= InkOutline.radiusSlope * lengths[index]
        else { return nil }
        return (bisector * miter, 2 * halfTurnSine)
    }
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
