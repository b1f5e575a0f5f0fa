import EaselModel
import EaselSync

/// A script being run on one bot's client engine, as a state machine: it
/// runs statements until one needs time to pass, and says what the host
/// must do then. It never sleeps or touches a socket itself, so a test can
/// run a script with no server and no clock.
public struct ScriptRun: BotBehaviour {

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
    public mutating func advance(_ client: inout SyncClient, at now: Timestamp) throws(ScriptError) -> BotStep {
        while let statement = nextStatement() {
            switch statement.action {
            case .wait(let milliseconds):
                return .wait(until: now + milliseconds)
            case .offline(let milliseconds):
                return .offline(reconnectAt: now + milliseconds)
            case .repeatBlock(let times, let body):
                if !body.isEmpty { frames.append((body, 0, times - 1)) }
            case .image(let file, let use):
                return .image(ImageStep(file: file, use: use, location: statement.location))
            case .expect(let expectation):
                if let failure = expectation.failure(in: client.editor) {
                    throw ScriptError(at: statement.location, failure)
                }
            default:
                do throws(ModelError) {
                    try client.carryOut(statement.action, at: now)
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
}
