import EaselModel

/// The outlines of the shapes that are not SVG primitives, in a box of
/// `width × height` centred on the origin.
enum ShapePaths {
    /// (cos, sin) of -π/2 + kπ/5 for k = 0..<10, as glibc computes them,
    /// written out: the renderer must give the same bytes on every platform,
    /// WebAssembly included, whose libm may differ in the last bit.
    private static let starDirections: [(Double, Double)] = [
        (6.123233995736766e-17, -1.0), (0.5877852522924731, -0.8090169943749475),
        (0.9510565162951535, -0.3090169943749474), (0.9510565162951535, 0.3090169943749474),
        (0.5877852522924731, 0.8090169943749475), (6.123233995736766e-17, 1.0),
        (-0.587785252292473, 0.8090169943749475), (-0.9510565162951535, 0.3090169943749475),
        (-0.9510565162951536, -0.3090169943749473), (-0.5877852522924732, -0.8090169943749473),
    ]

    /// A five-pointed star, a point at the top, its inner points at 40%.
    static func star(width: Float, height: Float) -> String {
        let points = starDirections.enumerated().map { index, direction -> String in
            let radius = index % 2 == 0 ? 1.0 : 0.4
            let x = direction.0 * radius * Double(width) / 2
            let y = direction.1 * radius * Double(height) / 2
            return "\(SVGNumber.format(x)),\(SVGNumber.format(y))"
        }
        return points.joined(separator: " ")
    }

    /// An arrow pointing right: a shaft a third of the height, a head at
    /// most as long as the box is tall.
    static func arrow(width: Float, height: Float) -> String {
        let head = min(width * 0.4, height)
        let shaft = height / 6
        let left = -width / 2
        let right = width / 2
        let neck = right - head
        let corners: [(Float, Float)] = [
            (left, -shaft), (neck, -shaft), (neck, -height / 2), (right, 0), (neck, height / 2), (neck, shaft),
            (left, shaft),
        ]
        return corners.map { "\(SVGNumber.format($0.0)),\(SVGNumber.format($0.1))" }.joined(separator: " ")
    }

    /// A speech bubble: a rounded body over the top 80%, a tail down to the
    /// bottom edge on the left.
    static func bubble(width: Float, height: Float) -> String {
        let body = height * 0.8
        let top = -height / 2
        let bottom = top + body
        let left = -width / 2
        let right = width / 2
        let radius = min(width, body) * 0.15
        func n(_ value: Float) -> String { SVGNumber.format(value) }
        return [
            "M\(n(left + radius)),\(n(top))",
            "H\(n(right - radius))",
            "A\(n(radius)),\(n(radius)) 0 0 1 \(n(right)),\(n(top + radius))",
            "V\(n(bottom - radius))",
            "A\(n(radius)),\(n(radius)) 0 0 1 \(n(right - radius)),\(n(bottom))",
            "H\(n(left + width * 0.4))",
            "L\(n(left + width * 0.15)),\(n(height / 2))",
            "L\(n(left + width * 0.25)),\(n(bottom))",
            "H\(n(left + radius))",
            "A\(n(radius)),\(n(radius)) 0 0 1 \(n(left)),\(n(bottom - radius))",
            "V\(n(top + radius))",
            "A\(n(radius)),\(n(radius)) 0 0 1 \(n(left + radius)),\(n(top))",
            "Z",
        ].joined(separator: " ")
    }
}
