import EaselModel

/// An ink outline as SVG path data: each piece a closed subpath, runs with
/// their round ends as half-circle arcs, all in the outline's one winding
/// so the nonzero fill paints their union once.
enum InkPath {
    static func data(_ outline: InkOutline) -> String {
        var path = ""
        for piece in outline.pieces { append(piece, to: &path) }
        return path
    }

    static func append(_ piece: InkOutline.Piece, to path: inout String) {
        switch piece {
        case .dot(let center, let radius):
            let top = Point(x: center.x, y: center.y + radius)
            path += "M" + pair(top)
            path += arc(radius, to: Point(x: center.x, y: center.y - radius))
            path += arc(radius, to: top) + "Z"
        case .run(let run):
            guard let firstLeft = run.left.first, let lastRight = run.right.last else { return }
            path += "M" + pair(firstLeft) + "L"
            for index in 1..<run.left.count { path += (index > 1 ? " " : "") + pair(run.left[index]) }
            path += arc(run.endRadius, to: lastRight) + "L"
            for index in stride(from: run.right.count - 2, through: 0, by: -1) {
                path += (index < run.right.count - 2 ? " " : "") + pair(run.right[index])
            }
            path += arc(run.startRadius, to: firstLeft) + "Z"
        case .arrowhead(let one, let tip, let other):
            path += "M" + pair(one) + "L" + pair(tip) + " " + pair(other) + "Z"
        }
    }

    private static func pair(_ point: Point) -> String {
        SVGNumber.format(point.x) + " " + SVGNumber.format(point.y)
    }

    /// A half circle (sweep flag 0: the winding the runs' sides give).
    private static func arc(_ radius: Float, to point: Point) -> String {
        let r = SVGNumber.format(radius)
        return "A" + r + " " + r + " 0 0 0 " + pair(point)
    }
}
