import EaselModel

/// The rules `--check` holds a history to after every op. The model and the
/// server already refuse most bad ops one at a time; these catch what got
/// into a log anyway (an older server, an import, a bug) and what only the
/// order of a log shows.
public enum Invariant: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// The op passes the checks a server makes against the document it
    /// lands on: the entity exists, the field is its kind's, only a stroke's
    /// author appends, numbers finite, strings and chunks within limits.
    case acceptable
    /// Numbers lie in `InvariantRanges`.
    case inRange
    /// IDs and keys: no second create of one entity, each replica's
    /// counters rising through the log.
    case keys
    /// An emoji is one character; a font has a name.
    case strings
    /// A stroke holds at most `InvariantRanges.samplesPerStroke` samples,
    /// their times never going back.
    case samples
    /// A stroke's author appends where the samples end: no gap, no rewrite.
    case contiguousAppends

    public var description: String {
        switch self {
        case .acceptable: "acceptable op"
        case .inRange: "numbers in range"
        case .keys: "keys"
        case .strings: "strings"
        case .samples: "samples"
        case .contiguousAppends: "contiguous appends"
        }
    }
}

/// What a canvas can sensibly hold. Far wider than any gesture produces;
/// a value outside is a bug or an attack, not a drawing.
public enum InvariantRanges {
    /// Centres and sample positions, in document units.
    public static let coordinate: ClosedRange<Float> = -1e6...1e6
    public static let scale: ClosedRange<Float> = 1e-4...1e4
    /// Radians: a hundred thousand turns is not a rotation but drift.
    public static let rotation: ClosedRange<Float> = -1e5...1e5
    public static let weight: ClosedRange<Float> = 0...1000
    /// An emoji's base size or a text's font size.
    public static let size: ClosedRange<Float> = 0.01...10_000
    public static let boxSide: ClosedRange<Float> = 0...1e6
    /// Seconds since the stroke began: a day is plenty.
    public static let sampleTime: ClosedRange<Float> = 0...86_400
    public static let force: ClosedRange<Float> = 0...1
    public static let samplesPerStroke: UInt32 = 1 << 20

    static func range(of field: FieldID) -> ClosedRange<Float>? {
        switch field {
        case .x, .y: coordinate
        case .scale: scale
        case .rotation: rotation
        case .weight: weight
        case .size: size
        case .width, .height: boxSide
        default: nil
        }
    }
}

/// One broken rule: where, and what exactly.
public struct Violation: Hashable, Sendable, CustomStringConvertible {
    public var position: UInt64
    public var invariant: Invariant
    public var detail: String

    public var description: String { "\(invariant): \(detail)" }
}
