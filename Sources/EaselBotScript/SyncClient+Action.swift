import EaselModel
import EaselSync

extension SyncClient {
    /// Does what a statement says through the editor's gestures and
    /// commands; statements about time and assertions do nothing here.
    public mutating func carryOut(_ action: Action, at now: Timestamp) throws(ModelError) {
        switch action {
        case .command(let command):
            try perform(command, at: now)
        case .tap(let point):
            try send(.tap(at: point), at: now)
        case .drag(let from, let by, let steps):
            try send(.dragBegan(at: from), at: now)
            for step in 1..<max(steps, 1) {
                let fraction = Float(step) / Float(steps)
                try send(.dragChanged(translation: Vector(dx: by.dx * fraction, dy: by.dy * fraction)), at: now)
            }
            try send(.dragEnded(translation: by), at: now)
        case .pinch(let around, let scale, let steps):
            try send(.pinchBegan(around: around), at: now)
            for step in 1..<max(steps, 1) {
                try send(.pinchChanged(scale: 1 + (scale - 1) * Float(step) / Float(steps)), at: now)
            }
            try send(.pinchEnded(scale: scale), at: now)
        case .rotate(let angle, let steps):
            try send(.rotateBegan, at: now)
            for step in 1..<max(steps, 1) {
                try send(.rotateChanged(angle: angle * Float(step) / Float(steps)), at: now)
            }
            try send(.rotateEnded(angle: angle), at: now)
        case .draw(let points, let pace, let pressure):
            try draw(Self.drawPoints(points, pace: pace, pressure: pressure), at: now)
        case .erase(let mode, let points, let speed, let weight):
            var settings = editor.state.drawing
            switch mode {
            case .pixels: (settings.action, settings.tool) = (.ink, .eraser)
            case .blur: (settings.action, settings.tool) = (.ink, .blur)
            case .objects: settings.action = .eraseObjects
            }
            settings.weight = weight ?? StrokeTool.eraser.ink.defaultWeight
            try drawing(with: settings, Self.drawPoints(points, pace: .speed(speed), pressure: nil), at: now)
        case .lasso(let points):
            var settings = editor.state.drawing
            settings.action = .lasso
            try drawing(with: settings, Self.drawPoints(points, pace: .over(seconds: 0.3), pressure: nil), at: now)
        case .shape(let kind, let from, let to):
            var settings = editor.state.drawing
            settings.action = .shape
            settings.shape = kind
            try drawing(
                with: settings, Self.drawPoints([from] + (to.map { [$0] } ?? []), pace: .over(seconds: 0.2), pressure: nil),
                at: now)
        case .type(let text):
            try perform(.editText(try selectedText("type"), text), at: now)
        case .typeInto(let text, let after, nil):
            let entity = try selectedText("type into")
            let position = after ?? editor.document.textSequenceForEditing(of: entity).count
            try perform(.replaceText(entity, range: position..<position, with: Array(text.unicodeScalars)), at: now)
        case .deleteCharacters(let from, let to):
            try perform(.replaceText(try selectedText("delete characters"), range: from..<to, with: []), at: now)
        case .typeInto, .wait, .offline, .repeatBlock, .expect, .image:
            // The script's host does these: time, the connection, files.
            break
        }
    }

    /// The one selected text, which `verb` acts on.
    func selectedText(_ verb: String) throws(ModelError) -> EntityID {
        let texts = editor.selectedTexts
        guard texts.count == 1, let entity = texts.first else {
            throw ModelError.invalidInput("\(verb) needs exactly one selected text entity; \(texts.count) are selected")
        }
        return entity
    }

    /// Types one key into a text at the place `anchor` keeps; the anchor of
    /// the place after it.
    mutating func typeKey(_ scalar: Unicode.Scalar, into text: EntityID, at anchor: TextAnchor, now: Timestamp)
        throws(ModelError) -> TextAnchor
    {
        let position = editor.document.textSequenceForEditing(of: text).position(of: anchor)
        try perform(.replaceText(text, range: position..<position, with: [scalar]), at: now)
        return editor.document.textSequenceForEditing(of: text).anchor(at: position + 1)
    }

    /// Draws with other settings, then puts the editor's back.
    private mutating func drawing(with settings: DrawingSettings, _ points: [DrawPoint], at now: Timestamp)
        throws(ModelError)
    {
        let saved = editor.state.drawing
        try perform(.setDrawing(settings), at: now)
        try draw(points, at: now)
        try perform(.setDrawing(saved), at: now)
    }

    private mutating func draw(_ points: [DrawPoint], at now: Timestamp) throws(ModelError) {
        guard let first = points.first else { return }
        try send(.drawBegan(first), at: now)
        if points.count > 1 { try send(.drawMoved(Array(points.dropFirst())), at: now) }
        try send(.drawEnded, at: now)
    }

    /// The points a scripted stroke reports: one at each point spread over
    /// the time given, or a steady hand's samples at a speed.
    static func drawPoints(_ points: [Point], pace: DrawPace, pressure: Float?) -> [DrawPoint] {
        guard let origin = points.first else { return [] }
        switch pace {
        case .over(let seconds):
            let interval = points.count > 1 ? seconds / Float(points.count - 1) : 0
            return points.enumerated().map { DrawPoint(location: $1, time: Float($0) * interval, force: pressure) }
        case .speed(let speed):
            return InkMotion.samples(through: points, speed: speed, rate: 120, pressure: pressure).map {
                DrawPoint(location: Point(x: origin.x + $0.x, y: origin.y + $0.y), time: $0.time, force: $0.force)
            }
        }
    }
}
