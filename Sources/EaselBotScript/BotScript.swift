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
    /// A stroke through points at a pace (which sets its speed, and so
    /// its width), pressed with `pressure` when given.
    case draw(through: [Point], pace: DrawPace, pressure: Float?)
    /// A path through points drawn with an eraser, as wide as `weight`
    /// (the eraser's default when nil), at `speed` units a second; the
    /// drawing settings are as before afterwards.
    case erase(EraseMode, through: [Point], speed: Float, weight: Float?)
    /// A closed path through points that selects what it surrounds.
    case lasso(through: [Point])
    /// A shape drawn with the shape tool: dragged out from one corner to
    /// the other, or tapped (`to` nil) for its default size.
    case shape(ShapeKind, from: Point, to: Point?)
    /// Replaces the text of the one selected text entity.
    case type(String)
    /// Types into the selected text a key at a time, from after its
    /// `after`th character (its end when nil), `perSecond` keys a second
    /// (all at once when nil). Each key is a character op, and the place is
    /// kept by the character before it, so others typing into the same
    /// text never misplace it.
    case typeInto(String, after: Int?, perSecond: Float?)
    /// Deletes the selected text's characters from position `from` up to
    /// `to` (as it reads then).
    case deleteCharacters(from: Int, to: Int)
    case wait(milliseconds: Int64)
    /// Closes the connection, keeps editing, reconnects after this long.
    case offline(milliseconds: Int64)
    case repeatBlock(times: Int, body: [Statement])
    case expect(Expectation)
    /// An image file uploaded and placed, or made the background: the
    /// host reads and uploads it (`BotStep.image`).
    case image(file: String, use: ImageUse)
}

/// What a bot does with an image file it uploads.
public enum ImageUse: Hashable, Sendable {
    /// Placed at a screen point, as big as `size` (width, height), or its
    /// own pixel size when nil.
    case place(at: Point, size: ImageSize?)
    /// The document's background, at its pixel size, filling its box so.
    case background(BackgroundFit)
}

public struct ImageSize: Hashable, Sendable {
    public var width: Float
    public var height: Float

    public init(width: Float, height: Float) {
        self.width = width
        self.height = height
    }
}

/// How fast a scripted stroke moves.
public enum DrawPace: Hashable, Sendable {
    /// One sample at each point, spread evenly over this many seconds.
    case over(seconds: Float)
    /// A steady hand at this many units a second, sampled 120 times a
    /// second along the lines between the points.
    case speed(Float)
}

/// What an eraser does.
public enum EraseMode: String, CaseIterable, Hashable, Sendable {
    /// Clears the pixels beneath it (a stroke with the eraser tool).
    case pixels
    /// Deletes the entities it touches.
    case objects
    /// Blurs what lies beneath it (a stroke with the blur tool).
    case blur
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
