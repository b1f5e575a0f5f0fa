/// One raw point of a freehand stroke, as the finger or pen reported it.
///
/// Raw samples are what the document stores: smoothing and the
/// speed-to-width curve are deterministic functions of them, so every
/// client renders the same stroke.
public struct StrokeSample: Hashable, Sendable {
    /// Position in document units.
    public var x: Float
    public var y: Float
    /// Seconds since the stroke began.
    public var time: Float
    /// Pen pressure in 0...1 where the device reports it.
    public var force: Float?

    public init(x: Float, y: Float, time: Float, force: Float? = nil) {
        self.x = x.canonical
        self.y = y.canonical
        self.time = time.canonical
        self.force = force?.canonical
    }

    var isFinite: Bool {
        x.isFinite && y.isFinite && time.isFinite && (force?.isFinite ?? true)
    }
}

extension Float {
    /// The value as the model stores it: -0.0 becomes 0.0, so equal numbers
    /// have equal bits on every replica. (Adding +0.0 does exactly that in
    /// IEEE 754 round-to-nearest, and leaves every other value alone.)
    @inlinable
    public var canonical: Float { self + 0 }
}
