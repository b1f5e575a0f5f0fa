#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A point, in document or screen units depending on where it is used.
public struct Point: Hashable, Sendable, CustomStringConvertible {
    public var x: Float
    public var y: Float

    public init(x: Float, y: Float) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    public static func + (point: Point, offset: Vector) -> Point {
        Point(x: point.x + offset.dx, y: point.y + offset.dy)
    }

    public static func - (lhs: Point, rhs: Point) -> Vector {
        Vector(dx: lhs.x - rhs.x, dy: lhs.y - rhs.y)
    }

    public var description: String { "(\(x), \(y))" }
}

/// A displacement.
public struct Vector: Hashable, Sendable {
    public var dx: Float
    public var dy: Float

    public init(dx: Float, dy: Float) {
        self.dx = dx
        self.dy = dy
    }

    public static let zero = Vector(dx: 0, dy: 0)

    public static func + (lhs: Vector, rhs: Vector) -> Vector {
        Vector(dx: lhs.dx + rhs.dx, dy: lhs.dy + rhs.dy)
    }

    public static func - (lhs: Vector, rhs: Vector) -> Vector {
        Vector(dx: lhs.dx - rhs.dx, dy: lhs.dy - rhs.dy)
    }

    public static func * (vector: Vector, factor: Float) -> Vector {
        Vector(dx: vector.dx * factor, dy: vector.dy * factor)
    }

    public static func / (vector: Vector, divisor: Float) -> Vector {
        Vector(dx: vector.dx / divisor, dy: vector.dy / divisor)
    }

    /// Rotated by `angle` radians (counter-clockwise with y up, clockwise on
    /// a screen whose y grows downwards).
    func rotated(by angle: Float) -> Vector {
        guard angle != 0 else { return self }
        let cosine = cosf(angle)
        let sine = sinf(angle)
        return Vector(dx: dx * cosine - dy * sine, dy: dx * sine + dy * cosine)
    }

    var length: Float { (dx * dx + dy * dy).squareRoot() }
}

/// An axis-aligned rectangle.
public struct Rect: Hashable, Sendable {
    public var minX: Float
    public var minY: Float
    public var maxX: Float
    public var maxY: Float

    public init(minX: Float, minY: Float, maxX: Float, maxY: Float) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// A rectangle of `width` × `height` centred on `center`.
    public init(center: Point, width: Float, height: Float) {
        self.init(
            minX: center.x - width / 2, minY: center.y - height / 2,
            maxX: center.x + width / 2, maxY: center.y + height / 2)
    }

    /// The smallest rectangle holding every point; nil for none.
    public init?(enclosing points: some Sequence<Point>) {
        var iterator = points.makeIterator()
        guard let first = iterator.next() else { return nil }
        self.init(minX: first.x, minY: first.y, maxX: first.x, maxY: first.y)
        while let point = iterator.next() {
            minX = min(minX, point.x)
            minY = min(minY, point.y)
            maxX = max(maxX, point.x)
            maxY = max(maxY, point.y)
        }
    }

    public var center: Point { Point(x: (minX + maxX) / 2, y: (minY + maxY) / 2) }
    public var width: Float { maxX - minX }
    public var height: Float { maxY - minY }
    public var corners: [Point] {
        [Point(x: minX, y: minY), Point(x: maxX, y: minY), Point(x: maxX, y: maxY), Point(x: minX, y: maxY)]
    }

    public func contains(_ point: Point) -> Bool {
        point.x >= minX && point.x <= maxX && point.y >= minY && point.y <= maxY
    }

    /// Whether the two share any point (edges included).
    public func intersects(_ other: Rect) -> Bool {
        minX <= other.maxX && other.minX <= maxX && minY <= other.maxY && other.minY <= maxY
    }

    public func contains(_ other: Rect) -> Bool {
        minX <= other.minX && other.maxX <= maxX && minY <= other.minY && other.maxY <= maxY
    }

    public func union(_ other: Rect) -> Rect {
        Rect(
            minX: min(minX, other.minX), minY: min(minY, other.minY),
            maxX: max(maxX, other.maxX), maxY: max(maxY, other.maxY))
    }

    func insetBy(_ amount: Float) -> Rect {
        Rect(minX: minX + amount, minY: minY + amount, maxX: maxX - amount, maxY: maxY - amount)
    }
}
