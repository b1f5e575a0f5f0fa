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
    /// Keys still to type at a pace, and the place they go.
    private var typing: Typing?

    private struct Typing {
        var text: EntityID
        var keys: [Unicode.Scalar]
        var anchor: TextAnchor
        var interval: Int64
        var location: SourceLocation
    }

    public init(_ script: BotScript) {
        frames = [(script.statements, 0, 0)]
    }

    public var isFinished: Bool { frames.isEmpty && typing == nil }

    /// Runs statements until a wait, an offline period or the end; a
    /// statement that fails (a gesture the editor refuses, an expectation
    /// not met) throws with its location.
    public mutating func advance(_ client: inout SyncClient, at now: Timestamp) throws(ScriptError) -> BotStep {
        if let wait = try typeNextKey(&client, at: now) { return wait }
        while let statement = nextStatement() {
            switch statement.action {
            case .typeInto(let text, let after, let perSecond?):
                do throws(ModelError) {
                    let entity = try client.selectedText("type into")
                    let sequence = client.editor.document.textSequenceForEditing(of: entity)
                    let start = min(after ?? sequence.count, sequence.count)
                    typing = Typing(
                        text: entity, keys: Array(text.unicodeScalars), anchor: sequence.anchor(at: start),
                        interval: max(1, Int64((1000 / perSecond).rounded())), location: statement.location)
                } catch {
                    throw ScriptError(at: statement.location, "the editor refused it: \(error)")
                }
                if let wait = try typeNextKey(&client, at: now) { return wait }
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

    /// Types the next key of a paced `type into`; the wait before the one
    /// after it, or nil when none is left.
    private mutating func typeNextKey(_ client: inout SyncClient, at now: Timestamp) throws(ScriptError) -> BotStep? {
        guard var current = typing else { return nil }
        guard !current.keys.isEmpty else {
            typing = nil
            return nil
        }
        do throws(ModelError) {
            current.anchor = try client.typeKey(current.keys.removeFirst(), into: current.text, at: current.anchor, now: now)
        } catch {
            typing = nil
            throw ScriptError(at: current.location, "the editor refused it: \(error)")
        }
        typing = current.keys.isEmpty ? nil : current
        return current.keys.isEmpty ? nil : .wait(until: now + current.interval)
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
