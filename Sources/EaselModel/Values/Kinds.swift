/// The kinds of entity a canvas holds. Fixed by the create op.
public enum EntityKind: UInt8, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case emoji = 1
    case shape = 2
    case text = 3
    case stroke = 4
    case image = 5

    public var description: String {
        switch self {
        case .emoji: "emoji"
        case .shape: "shape"
        case .text: "text"
        case .stroke: "stroke"
        case .image: "image"
        }
    }
}

public enum ShapeKind: UInt8, CaseIterable, Hashable, Sendable {
    case rectangle = 0
    case ellipse = 1
    case arrow = 2
    case star = 3
    case bubble = 4
}

public enum TextStyle: UInt8, CaseIterable, Hashable, Sendable {
    case regular = 0
    case outlined = 1
    case framed = 2
}

public enum TextAlignment: UInt8, CaseIterable, Hashable, Sendable {
    case left = 0
    case center = 1
    case right = 2
}

/// The tool a stroke was drawn with. The erasers that paint (pixel: clear,
/// blur) are strokes too; the object eraser deletes entities instead.
public enum StrokeTool: UInt8, CaseIterable, Hashable, Sendable {
    case pen = 0
    case brush = 1
    case marker = 2
    case neon = 3
    case pencil = 4
    case eraser = 5
    case blur = 6

    /// The pixel and blur erasers: strokes whose ink makes holes in (or
    /// blurs) the entities they erased rather than painting.
    public var erasesPixels: Bool { self == .eraser || self == .blur }
}

public enum EndCap: UInt8, CaseIterable, Hashable, Sendable {
    case round = 0
    case arrow = 1
}

/// How a document's background image fills its box: whole and letterboxed
/// in the background colour, covering the box and cropped, or stretched to
/// the box.
public enum BackgroundFit: UInt8, CaseIterable, Hashable, Sendable {
    case contain = 0
    case cover = 1
    case stretch = 2
}
