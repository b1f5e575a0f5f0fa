/// A visible entity as a value: what a renderer or a UI reads.
public struct Entity: Hashable, Sendable, Identifiable {
    public var id: EntityID
    public var transform: Transform
    public var zKey: ZKey
    public var style: Style
    public var content: Content

    public var kind: EntityKind {
        switch content {
        case .emoji: .emoji
        case .shape: .shape
        case .text: .text
        case .stroke: .stroke
        case .image: .image
        }
    }

    /// A pixel or blur eraser stroke: ink that takes away, never a thing to
    /// pick up, select, fit in view or erase.
    public var isEraser: Bool {
        if case .stroke(let stroke) = content { stroke.tool.erasesPixels } else { false }
    }

    public enum Content: Hashable, Sendable {
        case emoji(character: String, size: Float)
        case shape(ShapeKind, width: Float, height: Float)
        case text(TextContent)
        case stroke(StrokeContent)
        case image(blob: BlobHash, width: Float, height: Float)
    }
}

/// Where an entity sits: its centre in document units, its scale, and its
/// rotation in radians about the centre.
public struct Transform: Hashable, Sendable {
    public var x: Float
    public var y: Float
    public var scale: Float
    public var rotation: Float

    public init(x: Float = 0, y: Float = 0, scale: Float = 1, rotation: Float = 0) {
        self.x = x
        self.y = y
        self.scale = scale
        self.rotation = rotation
    }
}

public struct Style: Hashable, Sendable {
    public var color: Color
    /// `.clear` means not filled.
    public var fill: Color
    public var weight: Float

    public init(color: Color = .black, fill: Color = .clear, weight: Float = 2) {
        self.color = color
        self.fill = fill
        self.weight = weight
    }
}

public struct TextContent: Hashable, Sendable {
    public var string: String
    public var font: String
    public var size: Float
    public var style: TextStyle
    public var alignment: TextAlignment
}

public struct StrokeContent: Hashable, Sendable {
    public var tool: StrokeTool
    public var endCap: EndCap
    /// The samples reachable from index 0 (a chunk after a gap waits).
    public var samples: [StrokeSample]
    /// What a pixel or blur eraser erased (ErasedEntity); nil for an eraser
    /// drawn before erasures were recorded, which masks everything below it.
    public var erases: [ErasedEntity]?

    public init(tool: StrokeTool, endCap: EndCap, samples: [StrokeSample], erases: [ErasedEntity]? = nil) {
        self.tool = tool
        self.endCap = endCap
        self.samples = samples
        self.erases = erases
    }
}

extension Entity {
    /// An entity outside any document, such as a peer's stroke still being
    /// drawn, for a renderer to draw the way it draws the real thing.
    public init(preview id: EntityID, transform: Transform, style: Style, content: Content) {
        self.id = id
        self.transform = transform
        self.zKey = .first
        self.style = style
        self.content = content
    }
}

extension EntityRecord {
    /// The entity as a value, or nil while it is not visible; `text`: a
    /// text's characters as they read, when they are not its register
    /// (Document.entity(at:)).
    func entity(text merged: String?) -> Entity? {
        guard let kind, alive.value else { return nil }
        let content: Entity.Content =
            switch kind {
            case .emoji: .emoji(character: character.value, size: size.value)
            case .shape: .shape(shape.value, width: width.value, height: height.value)
            case .text:
                .text(
                    TextContent(
                        string: merged ?? text.value, font: font.value, size: size.value,
                        style: textStyle.value, alignment: alignment.value))
            case .stroke:
                .stroke(
                    StrokeContent(
                        tool: tool.value, endCap: endCap.value, samples: strokeSamples.samples,
                        erases: erases.isWritten ? erases.value : nil))
            case .image: .image(blob: blob.value, width: width.value, height: height.value)
            }
        return Entity(
            id: id,
            transform: Transform(x: x.value, y: y.value, scale: scale.value, rotation: rotation.value),
            zKey: zKey.value,
            style: Style(color: color.value, fill: fill.value, weight: weight.value),
            content: content)
    }
}
