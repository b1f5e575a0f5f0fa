extension Editor {
    /// Performs a command. Returns the ops it committed (one transaction,
    /// already applied locally); bad input throws and changes nothing.
    @discardableResult
    public mutating func perform(_ command: Command) throws(ModelError) -> [Op] {
        switch command {
        case .place(let new, let point):
            return try place(new, at: point)
        case .deleteSelection:
            let ids = state.selection
            return try transaction { editor, transaction throws(ModelError) in
                for id in ids.sorted() where editor.document.isVisible(id) { try transaction.delete(id) }
            }
        case .duplicateSelection:
            return try duplicateSelection()
        case .bringForward:
            return try moveSelectionInZOrder(upwards: true)
        case .sendBackward:
            return try moveSelectionInZOrder(upwards: false)
        case .bringToFront:
            return try moveSelectionToEnd(front: true)
        case .sendToBack:
            return try moveSelectionToEnd(front: false)
        case .clearAll:
            return try transaction { editor, transaction throws(ModelError) in
                for id in editor.document.zOrder { try transaction.delete(id) }
            }
        case .setStyle(let change):
            let field = change.field
            let ids = state.selection
            return try transaction { editor, transaction throws(ModelError) in
                for id in ids.sorted() {
                    guard let kind = editor.document[id]?.kind, kind.has(field.id) else { continue }
                    try transaction.set(field, of: id)
                }
            }
        case .editText(let id, let string):
            return try editText(id, to: string)
        case .replaceText(let id, let range, let scalars):
            return try replaceText(id, range: range, with: scalars)
        case .undo:
            return try undo()
        case .redo:
            return try redo()
        case .setDrawing(var settings):
            guard settings.weight.isFinite, settings.weight > 0 else {
                throw .invalidInput("a stroke weight must be finite and positive")
            }
            // Into the range the tool's slider offers.
            let weights = settings.weights
            settings.weight = min(max(settings.weight, weights.lowerBound), weights.upperBound)
            state.drawing = settings
            return []
        case .resetViewport:
            state.viewport = .standard
            return []
        case .setViewport(let change):
            state.viewport = try viewport(after: change)
            return []
        case .selectAll:
            state.selection = Set(document.zOrder.filter { !document.isEraser($0) })
            return []
        case .clearSelection:
            state.selection.removeAll()
            return []
        case .paste(let clipping, let point):
            return try paste(clipping, at: point)
        case .selectPlaced(let selects):
            state.selectsPlaced = selects
            return []
        case .nudge(let offset):
            guard offset.dx.isFinite, offset.dy.isFinite else { throw .invalidInput("a nudge must be finite") }
            let ids = state.selection
            guard offset != .zero else { return [] }
            return try transaction { editor, transaction throws(ModelError) in
                for id in ids.sorted() {
                    guard let entity = editor.document[id] else { continue }
                    try transaction.set(.x(entity.transform.x + offset.dx), of: id)
                    try transaction.set(.y(entity.transform.y + offset.dy), of: id)
                }
            }
        case .setBackground(let change):
            return try setBackground(change)
        }
    }

    private mutating func setBackground(_ change: BackgroundChange) throws(ModelError) -> [Op] {
        let fields: [Field]
        switch change {
        case .color(let color):
            fields = [.fill(color)]
        case .image(let blob, let width, let height, let fit):
            guard blob != .none else { throw .invalidInput("the zero hash names no image") }
            guard width.isFinite, height.isFinite, width > 0, height > 0 else {
                throw .invalidInput("a background image's box must be finite and positive")
            }
            fields = [.blob(blob), .width(width), .height(height), .fit(fit)]
        case .noImage:
            fields = [.blob(.none)]
        }
        return try transaction { _, transaction throws(ModelError) in
            for field in fields { try transaction.set(field, of: .document) }
        }
    }

    /// Builds one transaction with `body` and commits it if it wrote anything.
    mutating func transaction(
        _ body: (Editor, inout TransactionBuilder) throws(ModelError) -> Void
    ) throws(ModelError) -> [Op] {
        var transaction = try clock.beginTransaction()
        try body(self, &transaction)
        return transaction.ops.isEmpty ? [] : commit(transaction)
    }

    private mutating func place(_ new: NewEntity, at point: Point) throws(ModelError) -> [Op] {
        guard point.x.isFinite, point.y.isFinite else { throw .invalidInput("a point must be finite") }
        return try place(new, atDocument: state.viewport.documentPoint(fromScreen: point))
    }

    /// Puts a new entity on top, centred at a document point. `styled`: a
    /// shape drawn with the shape tool, which takes the drawing's colour,
    /// weight and fill as a stroke takes its colour and weight.
    mutating func place(_ new: NewEntity, atDocument location: Point, styled: Bool = false) throws(ModelError) -> [Op] {
        // Text takes the drawing colour, like a stroke. Values equal to the
        // registers' defaults are not written.
        let drawing = state.drawing
        let defaults = Style()
        var style: [Field] = []
        if (new.kind == .text || styled) && drawing.color != defaults.color { style.append(.color(drawing.color)) }
        if styled && drawing.weight != defaults.weight { style.append(.weight(drawing.weight)) }
        if styled && drawing.fill != defaults.fill { style.append(.fill(drawing.fill)) }
        let ops = try transaction { editor, transaction throws(ModelError) in
            let key = editor.document.zPlacementOnTop(jitter: Self.jitter(for: try transaction.nextID))
            try transaction.create(new.kind, new.fields + style + [.x(location.x), .y(location.y), .zKey(key)])
        }
        if state.selectsPlaced, let created = ops.first { state.selection = [created.entity] }
        return ops
    }

    private mutating func duplicateSelection() throws(ModelError) -> [Op] {
        var scratch = document
        var copies: Set<EntityID> = []
        let originals = document.zOrder.filter(state.selection.contains)
        let ops = try transaction { editor, transaction throws(ModelError) in
            for original in originals {
                guard let kind = scratch.kind(of: original), let entity = scratch[original] else { continue }
                let applied = transaction.ops.count
                let placement = try scratch.zPlacement(
                    above: original, jitter: Self.jitter(for: try transaction.nextID))
                for rekey in placement.rekeys { try transaction.set(.zKey(rekey.key), of: rekey.entity) }
                var fields = scratch.fieldsAsTheyRead(of: original, kind: kind)
                // A copy is whole: the holes of the original belong to the
                // original alone, and a copied eraser erases nothing.
                fields.removeAll { [.x, .y, .zKey, .erases].contains($0.id) }
                fields += [
                    .x(entity.transform.x + Self.duplicateOffset.dx), .y(entity.transform.y + Self.duplicateOffset.dy),
                    .zKey(placement.key),
                ]
                let copy = try transaction.create(copying: kind, fields)
                copies.insert(copy)
                if case .stroke(let stroke) = entity.content {
                    try transaction.append(inChunks: stroke.samples, to: copy, at: 0)
                }
                for op in transaction.ops[applied...] { scratch.apply(op) }
            }
        }
        if !ops.isEmpty { state.selection = copies }
        return ops
    }
}

extension TransactionBuilder {
    /// The ID the next op added will get.
    var nextID: OpID {
        get throws(ModelError) { try clock.peek }
    }
}
