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
        case .draw(let points, let seconds):
            let interval = points.count > 1 ? seconds / Float(points.count - 1) : 0
            let timed = points.enumerated().map { DrawPoint(location: $1, time: Float($0) * interval) }
            try send(.drawBegan(timed[0]), at: now)
            if timed.count > 1 { try send(.drawMoved(Array(timed.dropFirst())), at: now) }
            try send(.drawEnded, at: now)
        case .type(let text):
            let texts = editor.state.selection.filter { editor.document.kind(of: $0) == .text }
            guard texts.count == 1, let entity = texts.first else {
                throw ModelError.invalidInput(
                    "type needs exactly one selected text entity; \(texts.count) are selected")
            }
            try perform(.editText(entity, text), at: now)
        case .wait, .offline, .repeatBlock, .expect:
            break
        }
    }
}
