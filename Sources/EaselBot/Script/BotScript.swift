import EaselModel

/// A bot's script, parsed: statements in order, each with where it was
/// written so a failure can name its line and column (Docs/bots.md).
public struct BotScript: Hashable, Sendable {
    public var statements: [Statement]

    public init(statements: [Statement]) {
        self.statements = statements
    }
}

/// Where something was written: 1-based line and column.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column)" }
}

public struct Statement: Hashable, Sendable {
    public var action: Action
    public var location: SourceLocation

    public init(_ action: Action, at location: SourceLocation) {
        self.action = action
        self.location = location
    }
}

/// What one statement does. Gestures and commands go through the editor,
/// as a person's fingers and buttons would.
public indirect enum Action: Hashable, Sendable {
    case command(Command)
    case tap(Point)
    /// A drag from a point by a translation, in `steps` moves.
    case drag(from: Point, by: Vector, steps: Int)
    /// A pinch around a point to a scale factor, in `steps` moves.
    case pinch(around: Point, scale: Float, steps: Int)
    /// A rotation of the selection by an angle in radians, in `steps` moves.
    case rotate(angle: Float, steps: Int)
    /// A stroke through points, spread evenly over `seconds` (which sets
    /// its speed, and so its width).
    case draw(through: [Point], seconds: Float)
    /// Replaces the text of the one selected text entity.
    case type(String)
    case wait(milliseconds: Int64)
    /// Closes the connection, keeps editing, reconnects after this long.
    case offline(milliseconds: Int64)
    case repeatBlock(times: Int, body: [Statement])
    case expect(Expectation)
}

/// An assertion about the bot's document.
public enum Expectation: Hashable, Sendable {
    /// Visible entities.
    case count(Int)
    /// The state hash, as hex or as its emoji key.
    case stateHash(String)
    /// A field of every selected entity, as the script wrote its value.
    case selected(field: String, value: String)
}
