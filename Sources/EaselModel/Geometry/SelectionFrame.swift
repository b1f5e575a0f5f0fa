/// The box a selection's handles sit on, in document units: for one entity
/// its own box, turned with it; for several the upright box around them
/// all. A scale or rotation handle acts about `center`.
public struct SelectionFrame: Hashable, Sendable {
    public var center: Point
    public var width: Float
    public var height: Float
    /// Radians, as an entity's rotation; 0 for several entities.
    public var rotation: Float

    public init(center: Point, width: Float, height: Float, rotation: Float) {
        self.center = center
        self.width = width
        self.height = height
        self.rotation = rotation
    }
}

extension Document {
    /// The frame around the visible entities among `ids`, each where
    /// `transform` shows it (a gesture in flight moves the frame with it);
    /// nil when none is visible. Erasers, which nothing selects, are left out.
    public func frame(of ids: some Collection<EntityID>, transform: (Entity) -> Transform) -> SelectionFrame? {
        var geometries: [EntityGeometry] = []
        for id in ids {
            guard var entity = self[id], !entity.isEraser else { continue }
            entity.transform = transform(entity)
            geometries.append(EntityGeometry(entity))
        }
        guard let first = geometries.first else { return nil }
        if geometries.count == 1 {
            return SelectionFrame(
                center: first.documentPoint(fromLocal: first.localBox.center),
                width: first.localBox.width * abs(first.scale), height: first.localBox.height * abs(first.scale),
                rotation: first.rotation)
        }
        let bounds = geometries.dropFirst().reduce(first.documentBounds) { $0.union($1.documentBounds) }
        return SelectionFrame(center: bounds.center, width: bounds.width, height: bounds.height, rotation: 0)
    }
}

extension Editor {
    /// This person's selection's frame as displayed: with the gesture in
    /// flight, so the handles follow a drag, a pinch or a turn.
    public var selectionFrame: SelectionFrame? {
        document.frame(of: state.selection, transform: state.displayedTransform(of:))
    }
}
