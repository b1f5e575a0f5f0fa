extension Editor {
    /// Reduces one gesture event. Returns the ops it committed, already
    /// applied locally: none while a gesture is in flight (except drawing),
    /// one transaction when it ends. Bad numbers throw and change nothing.
    @discardableResult
    public mutating func send(_ event: GestureEvent) throws(ModelError) -> [Op] {
        try Self.check(event)
        switch event {
        case .tap(let point):
            if let hit = entity(atScreen: point) {
                if state.selection.contains(hit) {
                    state.selection.remove(hit)
                } else {
                    state.selection.insert(hit)
                }
            } else {
                state.selection.removeAll()
            }
            return []

        case .dragBegan(let point):
            if let hit = entity(atScreen: point) {
                state.gesture = .moving(state.selection.contains(hit) ? state.selection : [hit], by: .zero)
            } else {
                state.gesture = .panning(by: .zero)
            }
            return []
        case .dragChanged(let translation):
            switch state.gesture {
            case .moving(let ids, _)?: state.gesture = .moving(ids, by: translation / state.viewport.zoom)
            case .panning?: state.gesture = .panning(by: translation)
            default: break
            }
            return []
        case .dragEnded(let translation):
            switch state.gesture {
            case .moving(let ids, _)?:
                state.gesture = nil
                let offset = translation / state.viewport.zoom
                guard offset != .zero else { return [] }
                return try commitEach(ids) { entity, transaction throws(ModelError) in
                    try transaction.set(.x(entity.transform.x + offset.dx), of: entity.id)
                    try transaction.set(.y(entity.transform.y + offset.dy), of: entity.id)
                }
            case .panning?:
                state.gesture = nil
                state.viewport = state.viewport.panned(by: translation)
            default: break
            }
            return []
        case .dragCancelled:
            if case .moving? = state.gesture { state.gesture = nil }
            if case .panning? = state.gesture { state.gesture = nil }
            return []

        case .pinchBegan(let anchor):
            state.gesture = state.selection.isEmpty ? .zooming(around: anchor, by: 1) : .scaling(state.selection, by: 1)
            return []
        case .pinchChanged(let factor):
            switch state.gesture {
            case .scaling(let ids, _)?: state.gesture = .scaling(ids, by: factor)
            case .zooming(let anchor, _)?: state.gesture = .zooming(around: anchor, by: factor)
            default: break
            }
            return []
        case .pinchEnded(let factor):
            switch state.gesture {
            case .scaling(let ids, _)?:
                state.gesture = nil
                guard factor != 1 else { return [] }
                return try commitEach(ids) { entity, transaction throws(ModelError) in
                    try transaction.set(.scale(entity.transform.scale * factor), of: entity.id)
                }
            case .zooming(let anchor, _)?:
                state.gesture = nil
                state.viewport = state.viewport.zoomed(by: factor, around: anchor)
            default: break
            }
            return []
        case .pinchCancelled:
            if case .scaling? = state.gesture { state.gesture = nil }
            if case .zooming? = state.gesture { state.gesture = nil }
            return []

        case .rotateBegan:
            // Rotating needs a selection; the document itself never turns.
            state.gesture = state.selection.isEmpty ? nil : .rotating(state.selection, by: 0)
            return []
        case .rotateChanged(let angle):
            if case .rotating(let ids, _)? = state.gesture { state.gesture = .rotating(ids, by: angle) }
            return []
        case .rotateEnded(let angle):
            guard case .rotating(let ids, _)? = state.gesture else { return [] }
            state.gesture = nil
            guard angle != 0 else { return [] }
            return try commitEach(ids) { entity, transaction throws(ModelError) in
                try transaction.set(.rotation(entity.transform.rotation + angle), of: entity.id)
            }
        case .rotateCancelled:
            if case .rotating? = state.gesture { state.gesture = nil }
            return []

        case .drawBegan(let point):
            let location = state.viewport.documentPoint(fromScreen: point.location)
            switch state.drawing.action {
            case .ink: return try beginStroke(at: point)
            case .eraseObjects: state.gesture = .erasing([location])
            case .lasso: state.gesture = .lassoing([location])
            case .shape: state.gesture = .shaping(from: location, to: location)
            }
            return []
        case .drawMoved(let points):
            switch state.gesture {
            case .erasing(let path)?: state.gesture = .erasing(path + documentPoints(points))
            case .lassoing(let path)?: state.gesture = .lassoing(path + documentPoints(points))
            case .shaping(let from, _)?:
                if let last = points.last {
                    state.gesture = .shaping(from: from, to: state.viewport.documentPoint(fromScreen: last.location))
                }
            default: return try continueStroke(with: points)
            }
            return []
        case .drawEnded:
            switch state.gesture {
            case .drawing?:
                state.gesture = nil
            case .erasing(let path)?:
                state.gesture = nil
                return try eraseObjects(along: path)
            case .lassoing(let path)?:
                state.gesture = nil
                state.selection = Set(document.entities(insideLasso: path))
            case .shaping(let from, let to)?:
                state.gesture = nil
                return try placeShape(from: from, to: to)
            default:
                break
            }
            return []
        }
    }

    /// One transaction over the gesture's entities that are still visible,
    /// each edited from its CURRENT values (a remote move that arrived
    /// during the gesture is kept, not overwritten).
    private mutating func commitEach(
        _ ids: Set<EntityID>, _ edit: (Entity, inout TransactionBuilder) throws(ModelError) -> Void
    ) throws(ModelError) -> [Op] {
        var transaction = try clock.beginTransaction()
        for id in ids.sorted() {
            guard let entity = document[id] else { continue }
            try edit(entity, &transaction)
        }
        return transaction.ops.isEmpty ? [] : commit(transaction)
    }

    /// The drawing settings' shape with the dragged box, or at its default
    /// size where the drag was a tap.
    private mutating func placeShape(from: Point, to: Point) throws(ModelError) -> [Op] {
        let width = abs(to.x - from.x)
        let height = abs(to.y - from.y)
        let threshold = DrawingSettings.shapeDragThreshold
        let shape = state.drawing.shape
        guard width >= threshold || height >= threshold else {
            let size = DrawingSettings.tappedShapeSize
            return try place(.shape(shape, width: size.width, height: size.height), atDocument: from, styled: true)
        }
        let centre = Point(x: (from.x + to.x) / 2, y: (from.y + to.y) / 2)
        return try place(.shape(shape, width: max(width, 1), height: max(height, 1)), atDocument: centre, styled: true)
    }

    private func documentPoints(_ points: [DrawPoint]) -> [Point] {
        points.map { state.viewport.documentPoint(fromScreen: $0.location) }
    }

    /// Deletes every visible entity the eraser's path touches, at its
    /// width, in one transaction: one undo brings them all back.
    private mutating func eraseObjects(along path: [Point]) throws(ModelError) -> [Op] {
        let touched = document.entities(touchedBy: path, radius: state.drawing.weight / 2)
        guard !touched.isEmpty else { return [] }
        state.selection.subtract(touched)
        return try transaction { _, transaction throws(ModelError) in
            for id in touched.sorted() { try transaction.delete(id) }
        }
    }

    private mutating func beginStroke(at point: DrawPoint) throws(ModelError) -> [Op] {
        let origin = state.viewport.documentPoint(fromScreen: point.location)
        var transaction = try clock.beginTransaction()
        let settings = state.drawing
        var fields: [Field] = [
            .tool(settings.tool), .color(settings.color), .weight(settings.weight), .endCap(settings.endCap),
            .x(origin.x), .y(origin.y),
            .zKey(document.zPlacementOnTop(jitter: Self.jitter(for: transaction.id.first))),
        ]
        // Written from the start, even empty: it marks an eraser whose holes
        // belong to what it erased, never one that masks all beneath it.
        if settings.tool.erasesPixels { fields.append(.erases([])) }
        let stroke = try transaction.create(.stroke, fields)
        try transaction.append([StrokeSample(x: 0, y: 0, time: point.time, force: point.force)], to: stroke, at: 0)
        var progress = StrokeInProgress(
            stroke: stroke, transaction: transaction.id, origin: origin, nextIndex: 1, lastTime: point.time)
        let ops = commit(transaction)
        state.gesture = .drawing(progress)
        guard settings.tool.erasesPixels else { return ops }
        // A dab erases too.
        var erasing = try clock.continueTransaction(progress.transaction)
        try recordErasures(along: [origin], of: &progress, in: &erasing)
        state.gesture = .drawing(progress)
        return erasing.ops.isEmpty ? ops : ops + commit(erasing, undoable: false)
    }

    /// Adds to a pixel or blur eraser's `erases` every entity beneath it
    /// that `path` (document units, continuing from the last sample)
    /// reaches and that it has not erased yet, each with where it stands
    /// now; one set of the whole list when it grew.
    private func recordErasures(
        along path: [Point], of progress: inout StrokeInProgress, in transaction: inout TransactionBuilder
    ) throws(ModelError) {
        defer { if let last = path.last { progress.lastPoint = last } }
        guard progress.erased.count < ModelLimits.erasedEntities else { return }
        let reach = document.entities(touchedBy: [progress.lastPoint] + path, radius: state.drawing.weight / 2)
        var grew = false
        for id in reach where progress.erased.count < ModelLimits.erasedEntities {
            guard id != progress.stroke, document.isBelow(id, progress.stroke),
                !progress.erased.contains(where: { $0.entity == id }), let entity = document[id]
            else { continue }
            if entity.isEraser { continue }
            progress.erased.append(ErasedEntity(entity: id, transform: entity.transform))
            grew = true
        }
        if grew { try transaction.set(.erases(progress.erased), of: progress.stroke) }
    }

    private mutating func continueStroke(with points: [DrawPoint]) throws(ModelError) -> [Op] {
        guard case .drawing(var progress)? = state.gesture, !points.isEmpty else { return [] }
        // Checked before anything changes: a refused batch leaves the stroke
        // as it was, and the gesture goes on.
        var previous = progress.lastTime
        for point in points {
            guard point.time >= previous else {
                throw .invalidInput("a draw point is earlier than the one before it")
            }
            previous = point.time
        }
        progress.lastTime = previous
        var transaction = try clock.continueTransaction(progress.transaction)
        let samples = points.map { point in
            let location = state.viewport.documentPoint(fromScreen: point.location)
            return StrokeSample(
                x: location.x - progress.origin.x, y: location.y - progress.origin.y, time: point.time,
                force: point.force)
        }
        progress.nextIndex = try transaction.append(inChunks: samples, to: progress.stroke, at: progress.nextIndex)
        if state.drawing.tool.erasesPixels, document.isVisible(progress.stroke) {
            let path = samples.map { Point(x: $0.x + progress.origin.x, y: $0.y + progress.origin.y) }
            try recordErasures(along: path, of: &progress, in: &transaction)
        }
        state.gesture = .drawing(progress)
        return commit(transaction, undoable: false)
    }

    private static func check(_ event: GestureEvent) throws(ModelError) {
        func finite(_ values: Float..., what: String) throws(ModelError) {
            guard values.allSatisfy({ $0.isFinite }) else { throw .invalidInput("\(what) must be finite") }
        }
        switch event {
        case .tap(let point), .dragBegan(let point), .pinchBegan(let point):
            try finite(point.x, point.y, what: "a point")
        case .dragChanged(let translation), .dragEnded(let translation):
            try finite(translation.dx, translation.dy, what: "a translation")
        case .pinchChanged(let factor), .pinchEnded(let factor):
            guard factor.isFinite, factor > 0 else { throw .invalidInput("a pinch scale must be finite and positive") }
        case .rotateChanged(let angle), .rotateEnded(let angle):
            try finite(angle, what: "an angle")
        case .drawBegan(let point):
            try finite(point.location.x, point.location.y, point.time, point.force ?? 0, what: "a draw point")
        case .drawMoved(let points):
            for point in points {
                try finite(point.location.x, point.location.y, point.time, point.force ?? 0, what: "a draw point")
            }
        case .dragCancelled, .pinchCancelled, .rotateBegan, .rotateCancelled, .drawEnded:
            break
        }
    }
}
