import EaselModel

/// What the pixel and blur erasers do to the entities they erased.
///
/// An eraser that recorded what it erased (its `erases` field) makes a hole
/// in, or blurs, each of those entities alone: the entity wears a mask of
/// the eraser's ink carried into its own frame (`holes`), so the hole moves,
/// scales and turns with it, and whatever comes under the ink later is
/// untouched.
///
/// An eraser drawn before erasures were recorded is read as it was drawn:
/// each such stroke defines one mask, `below-<eraser>`, white except where
/// it and every such eraser above it lie; an entity wears the mask of the
/// first one above it, so it is cleared wherever any of them above it
/// passed. Such a blur eraser also draws, blurred and inside its own ink,
/// the entities beneath it that its box meets.
///
/// Masks and blurs refer to elements by ID (`ink-…` for an eraser's ink,
/// `e-…` for an entity's drawing), so a live canvas patches one entity at a
/// time as before.
public struct EraserLayers: Sendable {
    /// One hole an eraser made in an entity: the eraser, and where the
    /// entity stood when it was erased.
    public struct Hole: Hashable, Sendable {
        public var eraser: EntityID
        public var transform: Transform
        /// A blur eraser's: the entity shows blurred inside the ink, not cleared.
        public var blurs: Bool
    }

    let document: Document
    /// The erasers that recorded nothing of what they erased, bottom first:
    /// each masks everything beneath it.
    public let erasers: [EntityID]
    private let keys: [ZKey]
    /// The erasers that recorded what they erased, bottom first.
    public let recording: [EntityID]
    /// Each erased entity's holes, from the erasers that recorded it, bottom first.
    public let holes: [EntityID: [Hole]]
    /// What each recording eraser erased, as it listed them.
    public let erased: [EntityID: [EntityID]]
    private let allErasers: Set<EntityID>

    public init(_ document: Document) {
        self.document = document
        let strokes = document.erasingStrokes
        erasers = strokes.map { $0.id }
        keys = strokes.map { $0.zKey }
        var recording: [EntityID] = []
        var holes: [EntityID: [Hole]] = [:]
        var erased: [EntityID: [EntityID]] = [:]
        for erasure in document.erasures {
            recording.append(erasure.eraser)
            erased[erasure.eraser] = erasure.erased.map { $0.entity }
            for target in erasure.erased {
                holes[target.entity, default: []].append(
                    Hole(eraser: erasure.eraser, transform: target.transform, blurs: erasure.tool == .blur))
            }
        }
        self.recording = recording
        self.holes = holes
        self.erased = erased
        allErasers = Set(erasers).union(recording)
    }

    /// Layers for a document without erasers.
    public static let none = EraserLayers()

    private init() {
        document = Document()
        erasers = []
        keys = []
        recording = []
        holes = [:]
        erased = [:]
        allErasers = []
    }

    /// Whether an entity is a visible eraser stroke of either kind. O(1).
    public func isEraser(_ id: EntityID) -> Bool {
        allErasers.contains(id)
    }

    /// The index of the first eraser above an entity, if any.
    func firstAbove(_ entity: Entity) -> Int? {
        var low = 0
        var high = erasers.count
        while low < high {
            let middle = (low + high) / 2
            if (keys[middle], erasers[middle]) > (entity.zKey, entity.id) { high = middle } else { low = middle + 1 }
        }
        return low < erasers.count ? low : nil
    }

    /// The index of an eraser stroke among the erasers.
    func index(of id: EntityID) -> Int? { erasers.firstIndex(of: id) }

    /// The entities a blur eraser blurs: those beneath it its box meets,
    /// except other erasers.
    func blurred(by blur: Entity) -> [EntityID] {
        let box = EntityGeometry(blur).documentBounds
        return document.entities(below: blur.id, meeting: box).filter { !isEraser($0) }
    }

    /// Whether a blur eraser blurs the background image: the image lies
    /// beneath everything, so whenever the eraser's box meets its box.
    func blursBackground(_ blur: Entity) -> Bool {
        guard let image = document.background.image else { return false }
        let box = BackgroundSVG(image: image, options: SVGRenderer.Options()).box
        return EntityGeometry(blur).documentBounds.intersects(box)
    }

    /// An ID as an XML name: `@` is not a name character.
    static func name(_ id: EntityID) -> String {
        id.creation.text(prefix: UInt8(ascii: "e"), separator: UInt8(ascii: "-"))
    }
}
