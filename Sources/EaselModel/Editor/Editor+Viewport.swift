extension Editor {
    /// The view after a pan, a zoom or a fit; bad numbers, or a fit with
    /// nothing to show, throw and change nothing.
    func viewport(after change: ViewportChange) throws(ModelError) -> Viewport {
        let viewport = state.viewport
        switch change {
        case .pan(let translation):
            guard translation.dx.isFinite, translation.dy.isFinite else { throw .invalidInput("a pan must be finite") }
            return viewport.panned(by: translation)
        case .zoom(let factor, let anchor):
            guard factor.isFinite, factor > 0, anchor.x.isFinite, anchor.y.isFinite else {
                throw .invalidInput("a zoom needs a finite, positive factor and a finite point")
            }
            return viewport.zoomed(by: factor, around: anchor)
        case .zoomTo(let level, let anchor):
            guard level.isFinite, level > 0, anchor.x.isFinite, anchor.y.isFinite else {
                throw .invalidInput("a zoom level must be finite and positive")
            }
            return viewport.zoomed(by: level / viewport.zoom, around: anchor)
        case .fit(let target, let width, let height):
            guard width.isFinite, height.isFinite, width > 0, height > 0 else {
                throw .invalidInput("a screen to fit into must have a finite, positive size")
            }
            let ids = target == .selection ? state.selection : nil
            guard let bounds = document.visibleBounds(of: ids) else {
                throw .invalidInput(target == .selection ? "nothing is selected" : "the document is empty")
            }
            return Viewport.fitting(bounds, width: width, height: height, largestZoom: target == .selection ? 4 : 1)
        }
    }
}

extension Viewport {
    /// Margin around a fitted box, in screen units.
    static let fitMargin: Float = 32

    /// The view that shows `box` (document units) centred in a screen of
    /// this size, as large as fits within the margin, at most `largestZoom`.
    static func fitting(_ box: Rect, width: Float, height: Float, largestZoom: Float) -> Viewport {
        let room = (max(width - 2 * fitMargin, 1), max(height - 2 * fitMargin, 1))
        var zoom = min(room.0 / max(box.width, 1), room.1 / max(box.height, 1), largestZoom)
        zoom = min(max(zoom, zoomRange.lowerBound), zoomRange.upperBound)
        let centre = box.center
        return Viewport(pan: Vector(dx: width / 2 - centre.x * zoom, dy: height / 2 - centre.y * zoom), zoom: zoom)
    }
}

extension Document {
    /// The union of the document boxes of the visible entities (of `ids`,
    /// when given), erasers left out; nil when there are none. O(n).
    public func visibleBounds(of ids: Set<EntityID>? = nil) -> Rect? {
        var union: Rect?
        for entity in entities {
            if let ids, !ids.contains(entity.id) { continue }
            if entity.isEraser { continue }
            let box = EntityGeometry(entity).documentBounds
            union = union.map { $0.union(box) } ?? box
        }
        return union
    }
}
