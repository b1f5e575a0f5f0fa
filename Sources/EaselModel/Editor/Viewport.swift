/// What part of the document a client shows: screen = document × zoom + pan.
public struct Viewport: Hashable, Sendable {
    /// Screen units.
    public var pan: Vector
    public var zoom: Float

    public init(pan: Vector = .zero, zoom: Float = 1) {
        self.pan = pan
        self.zoom = zoom
    }

    /// The default viewport: no pan, zoom 1.
    public static let standard = Viewport()
    /// Zoom stays within these bounds so the document never vanishes.
    public static let zoomRange: ClosedRange<Float> = 0.05...20

    public func documentPoint(fromScreen point: Point) -> Point {
        Point(x: (point.x - pan.dx) / zoom, y: (point.y - pan.dy) / zoom)
    }

    public func screenPoint(fromDocument point: Point) -> Point {
        Point(x: point.x * zoom + pan.dx, y: point.y * zoom + pan.dy)
    }

    /// Panned by a screen translation.
    func panned(by translation: Vector) -> Viewport {
        Viewport(pan: pan + translation, zoom: zoom)
    }

    /// Zoomed by `factor`, keeping the document point under `anchor` still.
    func zoomed(by factor: Float, around anchor: Point) -> Viewport {
        let newZoom = min(max(zoom * factor, Self.zoomRange.lowerBound), Self.zoomRange.upperBound)
        let applied = newZoom / zoom
        let pan = Vector(dx: anchor.x - (anchor.x - pan.dx) * applied, dy: anchor.y - (anchor.y - pan.dy) * applied)
        return Viewport(pan: pan, zoom: newZoom)
    }
}
