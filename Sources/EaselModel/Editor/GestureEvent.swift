/// What a person's fingers (or a bot) do on the canvas. Points and
/// translations are in screen units; the editor maps them through the viewport.
public enum GestureEvent: Hashable, Sendable {
    case tap(at: Point)

    case dragBegan(at: Point)
    /// Translation since the drag began.
    case dragChanged(translation: Vector)
    case dragEnded(translation: Vector)
    case dragCancelled

    /// A pinch centred on `around`.
    case pinchBegan(around: Point)
    /// Scale factor since the pinch began.
    case pinchChanged(scale: Float)
    case pinchEnded(scale: Float)
    case pinchCancelled

    case rotateBegan
    /// Angle in radians since the rotation began.
    case rotateChanged(angle: Float)
    case rotateEnded(angle: Float)
    case rotateCancelled

    case drawBegan(DrawPoint)
    case drawMoved([DrawPoint])
    case drawEnded
}

/// A point of a drawing gesture as the screen reports it.
public struct DrawPoint: Hashable, Sendable {
    public var location: Point
    /// Seconds since the drawing began.
    public var time: Float
    /// Pen pressure in 0...1, where the device reports it.
    public var force: Float?

    public init(location: Point, time: Float, force: Float? = nil) {
        self.location = location
        self.time = time
        self.force = force
    }
}
