/// One field of an entity with its new value: what a set op writes.
///
/// Numbers are Float32 — enough for canvas coordinates, and half the bytes
/// of a Double on the wire. Rotation is in radians, sizes in document units.
public enum Field: Hashable, Sendable {
    case x(Float)
    case y(Float)
    case scale(Float)
    case rotation(Float)
    case zKey(ZKey)
    /// Stroke or outline colour, and the text colour.
    case color(Color)
    /// Fill colour; `.clear` means not filled.
    case fill(Color)
    /// Line weight in document units.
    case weight(Float)
    /// An emoji's base size, or a text's font size.
    case size(Float)
    /// A shape's or an image's box.
    case width(Float)
    case height(Float)
    /// The emoji itself (one grapheme, possibly many scalars).
    case character(String)
    case text(String)
    case font(String)
    case textStyle(TextStyle)
    case alignment(TextAlignment)
    case shape(ShapeKind)
    case tool(StrokeTool)
    case endCap(EndCap)
    /// Boxed: a hash is 32 bytes, and inline it would double every field's
    /// size in ops and registers.
    indirect case blob(BlobHash)
    /// How the document's background image fills its box (the document's
    /// own field, EntityID.document).
    case fit(BackgroundFit)
    /// The entities a pixel or blur eraser stroke erased, each with where it
    /// stood then (ErasedEntity); written only on eraser strokes.
    case erases([ErasedEntity])

    public var id: FieldID {
        switch self {
        case .x: .x
        case .y: .y
        case .scale: .scale
        case .rotation: .rotation
        case .zKey: .zKey
        case .color: .color
        case .fill: .fill
        case .weight: .weight
        case .size: .size
        case .width: .width
        case .height: .height
        case .character: .character
        case .text: .text
        case .font: .font
        case .textStyle: .textStyle
        case .alignment: .alignment
        case .shape: .shape
        case .tool: .tool
        case .endCap: .endCap
        case .blob: .blob
        case .fit: .fit
        case .erases: .erases
        }
    }
}

/// Names a field; the raw value is its tag in encodings, so never renumber.
public enum FieldID: UInt8, CaseIterable, Hashable, Comparable, Sendable, CustomStringConvertible {
    case x = 1
    case y = 2
    case scale = 3
    case rotation = 4
    case zKey = 5
    case color = 6
    case fill = 7
    case weight = 8
    case size = 9
    case width = 10
    case height = 11
    case character = 12
    case text = 13
    case font = 14
    case textStyle = 15
    case alignment = 16
    case shape = 17
    case tool = 18
    case endCap = 19
    case blob = 20
    case fit = 21
    case erases = 22

    public static func < (lhs: FieldID, rhs: FieldID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String {
        switch self {
        case .x: "x"
        case .y: "y"
        case .scale: "scale"
        case .rotation: "rotation"
        case .zKey: "zKey"
        case .color: "color"
        case .fill: "fill"
        case .weight: "weight"
        case .size: "size"
        case .width: "width"
        case .height: "height"
        case .character: "character"
        case .text: "text"
        case .font: "font"
        case .textStyle: "textStyle"
        case .alignment: "alignment"
        case .shape: "shape"
        case .tool: "tool"
        case .endCap: "endCap"
        case .blob: "blob"
        case .fit: "fit"
        case .erases: "erases"
        }
    }

    /// The document's own fields, written on `EntityID.document`: its
    /// background colour (fill; clear for the renderer's default), and its
    /// background image (blob; the zero hash for none) in a box of width ×
    /// height document units centred at the origin, filled as `fit` says.
    public static let document: Set<FieldID> = [.fill, .blob, .width, .height, .fit]

    /// The fields every kind of entity has: transform, z-order and style.
    public static let common: Set<FieldID> = [.x, .y, .scale, .rotation, .zKey, .color, .fill, .weight]
}

extension EntityKind {
    /// The fields an entity of this kind has; a field outside it is refused.
    public var fields: Set<FieldID> {
        switch self {
        case .emoji: FieldID.common.union([.character, .size])
        case .shape: FieldID.common.union([.shape, .width, .height])
        case .text: FieldID.common.union([.text, .font, .size, .textStyle, .alignment])
        case .stroke: FieldID.common.union([.tool, .endCap, .erases])
        case .image: FieldID.common.union([.blob, .width, .height])
        }
    }

    public func has(_ field: FieldID) -> Bool {
        Self.fieldMasks[Int(rawValue)] & (1 << field.rawValue) != 0
    }

    /// `fields` as bit masks indexed by raw value, for checks on hot paths.
    private static let fieldMasks: [UInt32] = {
        var masks = [UInt32](repeating: 0, count: 6)
        for kind in EntityKind.allCases {
            masks[Int(kind.rawValue)] = kind.fields.reduce(0) { $0 | 1 << $1.rawValue }
        }
        return masks
    }()
}
