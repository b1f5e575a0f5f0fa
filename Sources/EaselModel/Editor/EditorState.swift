/// One client's editing state, kept outside the document: what it has
/// selected, what it looks at, what it draws with, and the gesture in
/// flight. Never replicated as ops (presence shares parts of it).
public struct EditorState: Hashable, Sendable {
    public var selection: Set<EntityID> = []
    /// The settled viewport; while a pan or zoom is in flight,
    /// `displayedViewport` shows it live.
    public var viewport: Viewport = .standard
    public var drawing: DrawingSettings = DrawingSettings()
    public var gesture: Gesture?
    /// Whether an entity placed (an emoji, shape, text or image) becomes the
    /// selection, as in tldraw and Excalidraw; the web page turns it on.
    /// Off by default, as in EmojiArt, where a placed emoji waits for a tap.
    public var selectsPlaced = false
    /// Whether text edits are character ops that merge (protocol version 4
    /// and later) or, for a server that speaks an older version, writes of
    /// the whole string.
    public var textMergesCharacters = true
    /// The caret and text selection inside the text being edited; nil when
    /// no text is.
    public var textCaret: TextCaret?

    public init() {}

    /// The viewport as the screen shows it, in-flight pan or zoom included.
    public var displayedViewport: Viewport {
        switch gesture {
        case .panning(let translation)?: viewport.panned(by: translation)
        case .zooming(let anchor, let factor)?: viewport.zoomed(by: factor, around: anchor)
        default: viewport
        }
    }
}

/// What a drawing gesture does, and the tool and style new strokes get.
public struct DrawingSettings: Hashable, Sendable {
    public var action: DrawingAction = .ink
    public var tool: StrokeTool = .pen
    public var color: Color = .black
    /// The stroke's weight; for the object eraser, the width of its path.
    public var weight: Float = 3
    public var endCap: EndCap = .round
    /// The shape the `.shape` action places.
    public var shape: ShapeKind = .rectangle
    /// The fill of the shapes the `.shape` action places; `.clear`: none.
    public var fill: Color = .clear

    public init(
        action: DrawingAction = .ink, tool: StrokeTool = .pen, color: Color = .black, weight: Float = 3,
        endCap: EndCap = .round, shape: ShapeKind = .rectangle, fill: Color = .clear
    ) {
        self.action = action
        self.tool = tool
        self.color = color
        self.weight = weight
        self.endCap = endCap
        self.shape = shape
        self.fill = fill
    }

    /// The size a shape placed by a tap gets.
    public static let tappedShapeSize = (width: Float(120), height: Float(80))
    /// A drag whose box is smaller than this either way is a tap.
    public static let shapeDragThreshold: Float = 4

    /// The weights the slider offers for what is drawn: the tool's, or the
    /// eraser's for the object eraser. The lasso has no weight of its own.
    public var weights: ClosedRange<Float> {
        action == .eraseObjects ? StrokeTool.eraser.ink.weights : tool.ink.weights
    }
}

/// What a drawing gesture does.
public enum DrawingAction: UInt8, CaseIterable, Hashable, Sendable {
    /// Draws a stroke with the drawing tool (the pixel and blur erasers are
    /// strokes too).
    case ink = 0
    /// Deletes every entity the path touches, as one undoable transaction.
    case eraseObjects = 1
    /// Selects the entities whose centre the closed path surrounds.
    case lasso = 2
    /// Places the drawing settings' shape: a tap puts it at its default
    /// size, a drag makes its box.
    case shape = 3
}

/// A gesture in flight. Until it ends the document does not change (except
/// for drawing, whose samples stream); this transient state is what the UI
/// and presence show.
public enum Gesture: Hashable, Sendable {
    /// Entities dragged by a translation in document units.
    case moving(Set<EntityID>, by: Vector)
    /// The background dragged by a translation in screen units.
    case panning(by: Vector)
    case scaling(Set<EntityID>, by: Float)
    /// The document zoomed by a factor about a screen point.
    case zooming(around: Point, by: Float)
    /// Entities rotated by an angle in radians.
    case rotating(Set<EntityID>, by: Float)
    case drawing(StrokeInProgress)
    /// An object eraser's path so far, in document units.
    case erasing([Point])
    /// A lasso's path so far, in document units.
    case lassoing([Point])
    /// A shape's box being dragged out, corner to corner in document units.
    case shaping(from: Point, to: Point)

    /// The entities the gesture acts on.
    public var entities: Set<EntityID> {
        switch self {
        case .moving(let ids, _), .scaling(let ids, _), .rotating(let ids, _): ids
        case .drawing(let stroke): [stroke.stroke]
        case .panning, .zooming, .erasing, .lassoing, .shaping: []
        }
    }

    /// The gesture without the entities in `gone`.
    func removing(_ gone: Set<EntityID>) -> Gesture {
        switch self {
        case .moving(let ids, let offset): .moving(ids.subtracting(gone), by: offset)
        case .scaling(let ids, let factor): .scaling(ids.subtracting(gone), by: factor)
        case .rotating(let ids, let angle): .rotating(ids.subtracting(gone), by: angle)
        case .panning, .zooming, .drawing, .erasing, .lassoing, .shaping: self
        }
    }
}

/// A stroke being drawn: its samples stream as appends in one transaction.
public struct StrokeInProgress: Hashable, Sendable {
    public var stroke: EntityID
    public var transaction: TransactionID
    /// Where the stroke began, in document units: samples are relative to it.
    public var origin: Point
    /// The index the next appended sample gets.
    public var nextIndex: UInt32
    /// The latest sample's time: the next may not be earlier.
    public var lastTime: Float
    /// The latest sample, in document units: where the next stretch of a
    /// pixel or blur eraser starts looking for what it erases.
    public var lastPoint: Point
    /// What a pixel or blur eraser has erased so far (its `erases` field).
    public var erased: [ErasedEntity]

    public init(
        stroke: EntityID, transaction: TransactionID, origin: Point, nextIndex: UInt32, lastTime: Float,
        lastPoint: Point? = nil, erased: [ErasedEntity] = []
    ) {
        self.stroke = stroke
        self.transaction = transaction
        self.origin = origin
        self.nextIndex = nextIndex
        self.lastTime = lastTime
        self.lastPoint = lastPoint ?? origin
        self.erased = erased
    }
}

extension EditorState {
    /// An entity's transform as displayed: the document's, with the
    /// in-flight gesture's delta applied when the gesture holds it.
    public func displayedTransform(of entity: Entity) -> Transform {
        var transform = entity.transform
        switch gesture {
        case .moving(let ids, let offset)? where ids.contains(entity.id):
            transform.x += offset.dx
            transform.y += offset.dy
        case .scaling(let ids, let factor)? where ids.contains(entity.id):
            transform.scale *= factor
        case .rotating(let ids, let angle)? where ids.contains(entity.id):
            transform.rotation += angle
        default:
            break
        }
        return transform
    }
}
