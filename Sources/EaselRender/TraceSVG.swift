import EaselModel

/// Paths drawn while a gesture is in flight that are not ink: an eraser's
/// trail, a lasso, a shape's box being dragged out. A live canvas shows
/// them over the entities until the gesture ends.
public enum TraceSVG {
    public enum Kind: Sendable {
        /// An eraser's path at its width: the object eraser's, or a peer's
        /// pixel or blur eraser before its masks arrive.
        case eraser(weight: Float)
        /// A lasso: the closed path, dashed, lightly filled.
        case lasso
        /// A shape's box, from one corner to the other, dashed.
        case box
    }

    /// The trace as one SVG element, in document units.
    public static func svg(_ points: [Point], _ kind: Kind) -> String {
        let n = SVGNumber.format as (Float) -> String
        let list = points.map { n($0.x) + "," + n($0.y) }.joined(separator: " ")
        switch kind {
        case .eraser(let weight):
            return "<polyline class=\"trace\" points=\"\(list)\" fill=\"none\" stroke=\"#888888\" stroke-opacity=\"0.4\""
                + " stroke-width=\"\(n(weight))\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/>"
        case .lasso:
            return "<polygon class=\"trace\" points=\"\(list)\" fill=\"#3b82f6\" fill-opacity=\"0.08\" stroke=\"#3b82f6\""
                + " stroke-width=\"1.5\" stroke-dasharray=\"6 4\" vector-effect=\"non-scaling-stroke\"/>"
        case .box:
            guard let box = Rect(enclosing: points) else { return "" }
            return "<rect class=\"trace\" x=\"\(n(box.minX))\" y=\"\(n(box.minY))\" width=\"\(n(box.width))\""
                + " height=\"\(n(box.height))\" fill=\"none\" stroke=\"#3b82f6\" stroke-width=\"1.5\""
                + " stroke-dasharray=\"6 4\" vector-effect=\"non-scaling-stroke\"/>"
        }
    }
}
