import EaselModel
import EaselSync

/// A script being run on one bot's client engine, as a state machine: it
/// runs statements until one needs time to pass, and says what the host
/// must do then. It never sleeps or touches a socket itself, so a test can
/// run a script with no server and no clock.
public struct ScriptRun: Sendable {
    /// What the host does before calling `advance` again.
    public enum Step: Hashable, Sendable {
        /// Come back at this time.
        case wait(until: Timestamp)
        /// Close the connection now, keep the client, and reconnect at this
        /// time (come back then).
        case offline(until: Timestamp)
        case finished
    }

    /// Statements to run, innermost block last: where it is and how many
    /// more times it repeats.
    private var frames: [(statements: [Statement], next: Int, repeatsLeft: Int)]

    public init(_ script: BotScript) {
        frames = [(script.statements, 0, 0)]
    }

    public var isFinished: Bool { frames.isEmpty }

    /// Runs statements until a wait, an offline period or the end; a
    /// statement that fails (a gesture the editor refuses, an expectation
    /// not met) throws with its location.
    public mutating func advance(_ client: inout SyncClient, at now: Timestamp) throws(ScriptError) -> Step {
        while let statement = nextStatement() {
            switch statement.action {
            case .wait(let milliseconds):
                return .wait(until: now + milliseconds)
            case .offline(let milliseconds):
                return .offline(until: now + milliseconds)
            case .repeatBlock(let times, let body):
                if !body.isEmpty { frames.append((body, 0, times - 1)) }
            case .expect(let expectation):
                if let failure = expectation.failure(in: client.editor) {
                    throw ScriptError(at: statement.location, failure)
                }
            default:
                do throws(ModelError) {
                    try perform(statement.action, on: &client, at: now)
                } catch {
                    throw ScriptError(at: statement.location, "the editor refused it: \(error)")
                }
            }
        }
        return .finished
    }

    private mutating func nextStatement() -> Statement? {
        while var frame = frames.last {
            if frame.next < frame.statements.count {
                frames[frames.count - 1].next += 1
                return frame.statements[frame.next]
            }
            frames.removeLast()
            if frame.repeatsLeft > 0 {
                frame.next = 0
                frame.repeatsLeft -= 1
                frames.append(frame)
            }
        }
        return nil
    }

    private mutating func perform(_ action: Action, on client: inout SyncClient, at now: Timestamp)
        throws(ModelError)
    {
        switch action {
        case .command(let command):
            try client.perform(command, at: now)
        case .tap(let point):
            try client.send(.tap(at: point), at: now)
        case .drag(let from, let by, let steps):
            try client.send(.dragBegan(at: from), at: now)
            for step in 1..<max(steps, 1) {
                let fraction = Float(step) / Float(steps)
                try client.send(.dragChanged(translation: Vector(dx: by.dx * fraction, dy: by.dy * fraction)), at: now)
            }
            try client.send(.dragEnded(translation: by), at: now)
        case .pinch(let around, let scale, let steps):
            try client.send(.pinchBegan(around: around), at: now)
            for step in 1..<max(steps, 1) {
                try client.send(.pinchChanged(scale: 1 + (scale - 1) * Float(step) / Float(steps)), at: now)
            }
            try client.send(.pinchEnded(scale: scale), at: now)
        case .rotate(let angle, let steps):
            try client.send(.rotateBegan, at: now)
            for step in 1..<max(steps, 1) {
                try client.send(.rotateChanged(angle: angle * Float(step) / Float(steps)), at: now)
            }
            try client.send(.rotateEnded(angle: angle), at: now)
        case .draw(let points, let seconds):
            let interval = points.count > 1 ? seconds / Float(points.count - 1) : 0
            let timed = points.enumerated().map { DrawPoint(location: $1, time: Float($0) * interval) }
            try client.send(.drawBegan(timed[0]), at: now)
            if timed.count > 1 { try client.send(.drawMoved(Array(timed.dropFirst())), at: now) }
            try client.send(.drawEnded, at: now)
        case .type(let text):
            let texts = client.editor.state.selection.filter { client.editor.document.kind(of: $0) == .text }
            guard texts.count == 1, let entity = texts.first else {
                throw ModelError.invalidInput(
                    "type needs exactly one selected text entity; \(texts.count) are selected")
            }
            try client.perform(.editText(entity, text), at: now)
        case .wait, .offline, .repeatBlock, .expect:
            break
        }
    }
}
