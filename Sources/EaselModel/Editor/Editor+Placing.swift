extension Editor {
    /// The step between items placed one after another, in screen units.
    public static let placingStep: Float = 24
    /// How close to an item's centre counts as the same spot, in screen units.
    public static let placingSameSpot: Float = 4
    /// After this many steps the next item goes back to the first spot.
    public static let placingSteps = 10

    /// Where a new item goes when it is placed at `spot` (the middle of the
    /// view, in screen units): there, or a step down and to the right of an
    /// item already centred there, and so on, so items placed one after
    /// another never pile up exactly on one another (tldraw and Excalidraw
    /// do the same). When every step is taken, `spot` itself. Screen units,
    /// through the viewport a place converts by. O(n): placing is rare.
    public func placingSpot(near spot: Point) -> Point {
        let viewport = state.viewport
        let taken = document.entities.filter { !$0.isEraser }.map {
            viewport.screenPoint(fromDocument: Point(x: $0.transform.x, y: $0.transform.y))
        }
        for step in 0..<Self.placingSteps {
            let offset = Float(step) * Self.placingStep
            let candidate = Point(x: spot.x + offset, y: spot.y + offset)
            let occupied = taken.contains { point in
                let dx = point.x - candidate.x
                let dy = point.y - candidate.y
                return dx * dx + dy * dy <= Self.placingSameSpot * Self.placingSameSpot
            }
            if !occupied { return candidate }
        }
        return spot
    }
}
