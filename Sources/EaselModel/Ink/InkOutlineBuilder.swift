extension InkOutline {
    /// An outline that follows a growing line: walks the centre line
    /// once, closing a run wherever a join would not do, and when the line
    /// changes only at its end, keeps the runs that end before it and
    /// walks on from there. Bit for bit `InkOutline(line:)`.
    public struct Builder: Sendable {
        public let endCap: EndCap
        public let weight: Float
        public private(set) var outline = InkOutline()
        /// How many of the outline's first pieces the last update left as
        /// they were.
        public private(set) var unchangedPieces = 0

        /// The line's vertices without one that repeats the point before it.
        private var vertices: [InkLine.Vertex] = []
        /// For each vertex of the line, how many of `vertices` it and those
        /// before it gave.
        private var distinctCounts: [Int] = []
        /// Unit direction and length of each segment between `vertices`.
        private var directions: [Vector] = []
        private var lengths: [Float] = []
        /// The runs made so far, and the vertex each ends at.
        private var runs: [Piece] = []
        private var runEnds: [Int] = []

        public init(endCap: EndCap, weight: Float) {
            self.endCap = endCap
            self.weight = weight
        }

        /// Follows `line`, whose first `unchangedVertices` vertices are
        /// those of the line last followed.
        public mutating func update(_ line: InkLine, unchangedVertices: Int) {
            let shownPieces = outline.pieces.count
            // Let go of the pieces shown, which share the runs' storage: the
            // runs then change in place.
            outline.pieces = []
            let keptLine = min(unchangedVertices, distinctCounts.count, line.vertices.count)
            let kept = keptLine > 0 ? distinctCounts[keptLine - 1] : 0
            distinctCounts.removeLast(distinctCounts.count - keptLine)
            vertices.removeLast(vertices.count - kept)
            if kept == 0 {
                vertices.reserveCapacity(line.vertices.count)
                distinctCounts.reserveCapacity(line.vertices.count)
            }
            for vertex in line.vertices[keptLine...] {
                if vertices.last?.point != vertex.point { vertices.append(vertex) }
                distinctCounts.append(vertices.count)
            }
            // A run's last join looks one vertex past its end.
            while let end = runEnds.last, end + 1 >= kept {
                runs.removeLast()
                runEnds.removeLast()
            }
            unchangedPieces = min(runs.count, shownPieces)
            guard let first = vertices.first else {
                outline.pieces = []
                return
            }
            guard vertices.count > 1 else {
                outline.pieces = [.dot(center: first.point, radius: first.radius)]
                return
            }
            let keptSegments = max(kept - 1, 0)
            directions.removeLast(directions.count - min(keptSegments, directions.count))
            lengths.removeLast(lengths.count - min(keptSegments, lengths.count))
            for index in directions.count..<(vertices.count - 1) {
                let segment = vertices[index + 1].point - vertices[index].point
                let length = (segment.dx * segment.dx + segment.dy * segment.dy).squareRoot()
                directions.append(segment / length)
                lengths.append(length)
            }
            walk()
            if endCap == .arrow, let head = InkOutline.arrowhead(vertices, weight: weight) {
                // Kept with the runs as if it ended past the last vertex, so
                // the next update takes it away first.
                runs.append(head)
                runEnds.append(vertices.count)
            }
            outline.pieces = runs
        }

        /// Runs from the end of the last one kept to the line's end.
        private mutating func walk() {
            let last = vertices.count - 1
            var runStart = runEnds.last ?? 0
            var turned: Float = 0
            var left: [Point] = []
            var right: [Point] = []
            begin(at: runStart, left: &left, right: &right)
            if runStart + 1 < last {
                for index in (runStart + 1)..<last {
                    if let join = join(at: index), index - runStart < InkOutline.runSegments,
                        turned + join.turn <= InkOutline.runTurn
                    {
                        left.append(vertices[index].point + join.offset)
                        right.append(vertices[index].point + join.offset * -1)
                        turned += join.turn
                    } else {
                        runs.append(finish(from: runStart, at: index, left: &left, right: &right))
                        runEnds.append(index)
                        runStart = index
                        turned = 0
                        begin(at: index, left: &left, right: &right)
                    }
                }
            }
            runs.append(finish(from: runStart, at: last, left: &left, right: &right))
            runEnds.append(last)
        }

        /// A run's first sides, square to the segment leaving the vertex.
        private func begin(at index: Int, left: inout [Point], right: inout [Point]) {
            let offset = directions[index].leftNormal * vertices[index].radius
            left = [vertices[index].point + offset]
            right = [vertices[index].point + offset * -1]
        }

        /// A run's last sides, square to the segment arriving at the vertex.
        private func finish(from start: Int, at index: Int, left: inout [Point], right: inout [Point]) -> Piece {
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
}
