/// Where an entity's pixels are, shared by hit testing, bounds and (later)
/// rendering, the same for every kind.
///
/// Each entity has a local frame: its content's box and a pivot. The
/// document frame is `position + pivot + rotate(scale × (local − pivot))`.
/// For emoji, shapes, text and images the box is centred on the local
/// origin, which is the pivot; a stroke's samples are local points relative
/// to where it began, and its pivot is the centre of their box, so scaling
/// and rotating a stroke turn it about its middle like any other entity.
public struct EntityGeometry: Hashable, Sendable {
    public var position: Point
    public var scale: Float
    public var rotation: Float
    /// The content's box in the local frame.
    public var localBox: Rect
    public var pivot: Point
    /// For strokes: the polyline and its half width, for precise hits.
    var polyline: [Point]
    var halfWeight: Float

    /// Approximate text metrics (no font files in the model): a glyph is
    /// 0.6 em wide and a line 1.25 em tall.
    static let glyphWidth: Float = 0.6
    static let lineHeight: Float = 1.25
    /// How far outside a thin stroke a tap still hits it, in document units.
    static let strokeHitSlop: Float = 4

    public init(_ entity: Entity) {
        let transform = entity.transform
        switch entity.content {
        case .emoji(_, let size): self.init(transform, width: size, height: size)
        case .shape(_, let width, let height), .image(_, let width, let height):
            self.init(transform, width: width, height: height)
        case .text(let text): self.init(transform, text: text.string, size: text.size)
        case .stroke(let stroke):
            self.init(
                transform, samples: stroke.samples, weight: entity.style.weight, tool: stroke.tool,
                endCap: stroke.endCap)
        }
    }

    /// The geometry of a visible record, read in place: no entity is built.
    /// `text`: a text's characters as they read, when they are not its
    /// register (Document.geometry(of:)).
    init?(_ record: EntityRecord, text: String?) {
        guard let kind = record.kind, record.alive.value else { return nil }
        let transform = Transform(
            x: record.x.value, y: record.y.value, scale: record.scale.value, rotation: record.rotation.value)
        switch kind {
        case .emoji: self.init(transform, width: record.size.value, height: record.size.value)
        case .shape, .image: self.init(transform, width: record.width.value, height: record.height.value)
        case .text: self.init(transform, text: text ?? record.text.value, size: record.size.value)
        case .stroke:
            self.init(
                transform, samples: record.strokeSamples.samples, weight: record.weight.value,
                tool: record.tool.value, endCap: record.endCap.value)
        }
    }

    /// A box centred on the local origin, which is the pivot.
    private init(_ transform: Transform, width: Float, height: Float) {
        self.init(transform, localBox: Rect(center: .zero, width: width, height: height), pivot: .zero)
    }

    private init(_ transform: Transform, text: String, size: Float) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let longest = lines.map({ $0.count }).max() ?? 0
        self.init(
            transform, width: Float(max(longest, 1)) * size * Self.glyphWidth,
            height: Float(lines.count) * size * Self.lineHeight)
    }

    /// A stroke turns about the middle of its samples' box. Its box holds
    /// its ink: the widest the tool draws (full pressure), an arrowhead,
    /// and a unit for a corner's tip and the curve between samples.
    private init(_ transform: Transform, samples: [StrokeSample], weight: Float, tool: StrokeTool, endCap: EndCap) {
        let polyline = samples.map { Point(x: $0.x, y: $0.y) }
        let samplesBox = Rect(enclosing: polyline) ?? Rect(center: .zero, width: 0, height: 0)
        let pivot = samplesBox.insetBy(-weight / 2).center
        let head = endCap == .arrow ? max(8, 3 * weight) : 0
        let reach = max(weight / 2 * tool.ink.pressureFactor(1), head) + InkLine.apexReach
        self.init(
            transform, localBox: samplesBox.insetBy(-reach), pivot: pivot, polyline: polyline, halfWeight: weight / 2)
    }

    private init(
        _ transform: Transform, localBox: Rect, pivot: Point, polyline: [Point] = [], halfWeight: Float = 0
    ) {
        position = Point(x: transform.x, y: transform.y)
        scale = transform.scale
        rotation = transform.rotation
        self.localBox = localBox
        self.pivot = pivot
        self.polyline = polyline
        self.halfWeight = halfWeight
    }

    /// A local point in document coordinates.
    public func documentPoint(fromLocal local: Point) -> Point {
        let offset = ((local - pivot) * scale).rotated(by: rotation)
        return position + Vector(dx: pivot.x, dy: pivot.y) + offset
    }

    /// A document point in local coordinates; nil when scale is 0.
    public func localPoint(fromDocument point: Point) -> Point? {
        guard scale != 0 else { return nil }
        let offset = (point - position - Vector(dx: pivot.x, dy: pivot.y)).rotated(by: -rotation) / scale
        return pivot + offset
    }

    /// The axis-aligned box of the transformed content, in document units.
    public var documentBounds: Rect {
        Rect(enclosing: localBox.corners.map(documentPoint(fromLocal:)))
            ?? Rect(center: position, width: 0, height: 0)
    }

    /// Whether a document point lands on the entity, honouring rotation
    /// and scale; strokes hit along their line, not their whole box.
    public func contains(_ point: Point) -> Bool {
        guard let local = localPoint(fromDocument: point) else { return false }
        guard !polyline.isEmpty else { return localBox.contains(local) }
        let reach = halfWeight + Self.strokeHitSlop / max(abs(scale), .leastNormalMagnitude)
        if polyline.count == 1 { return (local - polyline[0]).length <= reach }
        return zip(polyline, polyline.dropFirst()).contains { start, end in
            Self.distance(from: local, toSegment: start, end) <= reach
        }
    }

    private static func distance(from point: Point, toSegment start: Point, _ end: Point) -> Float {
        let segment = end - start
        let lengthSquared = segment.dx * segment.dx + segment.dy * segment.dy
        guard lengthSquared > 0 else { return (point - start).length }
        let toPoint = point - start
        let along = max(0, min(1, (toPoint.dx * segment.dx + toPoint.dy * segment.dy) / lengthSquared))
        return (point - (start + segment * along)).length
    }
}

extension Document {
    /// Visible entities under a document point, topmost first; pixel and
    /// blur erasers, which show nothing of their own, are never hit. O(n).
    public func hitTest(_ point: Point) -> [EntityID] {
        entities.reversed().filter { entity in
            !entity.isEraser && EntityGeometry(entity).contains(point)
        }.map({ $0.id })
    }

    /// The topmost visible entity under a document point: `hitTest(point)
    /// .first`, without building any entity. It walks the z-order from the
    /// top and reads each record in place: an emoji's, shape's or image's
    /// position, size and scale first, and only when the point lies inside
    /// the circle that holds it at any rotation its exact geometry (texts
    /// and strokes, whose extent needs their content, always).
    public func topmostHit(_ point: Point) -> EntityID? {
        for slot in zOrderedSlots.reversed() {
            let index = Int(slot)
            // Erasers are ink that takes away, never a thing to pick up.
            guard let kind = records[index].kind, records[index].alive.value, !records[index].isEraser else { continue }
            let halfDiagonal: Float? =
                switch kind {
                case .emoji: records[index].size.value * 0.707_106_8  // half of √2
                case .shape, .image:
                    (records[index].width.value * records[index].width.value
                        + records[index].height.value * records[index].height.value).squareRoot() / 2
                case .text, .stroke: nil
                }
            if let halfDiagonal {
                // Slightly generous, so rounding never culls a real hit.
                let reach = halfDiagonal * abs(records[index].scale.value) * 1.001 + 0.001
                let dx = point.x - records[index].x.value
                let dy = point.y - records[index].y.value
                if !(dx * dx + dy * dy <= reach * reach) { continue }
            }
            guard let geometry = geometry(of: records[index]), geometry.contains(point) else { continue }
            return records[index].id
        }
        return nil
    }

    /// The box around the visible entities among `ids`, in document units;
    /// nil when none is visible.
    public func bounds(of ids: some Sequence<EntityID>) -> Rect? {
        ids.compactMap { self[$0].map { EntityGeometry($0).documentBounds } }.reduce(nil) { $0?.union($1) ?? $1 }
    }
}
