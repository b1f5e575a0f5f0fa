import EaselModel

/// What the pixel and blur erasers do to the entities beneath them, as
/// masks: each eraser stroke defines one mask, `below-<eraser>`, white
/// except where it and every eraser above it lie; an entity wears the mask
/// of the first eraser above it, so it is cleared wherever any eraser above
/// it passed and untouched by erasers below it. A blur eraser also draws,
/// blurred and inside its own ink, the entities beneath it that its box
/// meets. Masks and blurs refer to elements by ID (`ink-…` for an eraser's
/// ink, `e-…` for an entity's drawing), so a live canvas patches one entity
/// at a time as before.
public struct EraserLayers: Sendable {
    let document: Document
    /// The eraser strokes, bottom first.
    public let erasers: [EntityID]
    private let keys: [ZKey]

    public init(_ document: Document) {
        self.document = document
        let strokes = document.erasingStrokes
        erasers = strokes.map { $0.id }
        keys = strokes.map { $0.zKey }
    }

    /// Layers for a document without erasers.
    static let none = EraserLayers()

    private init() {
        document = Document()
        erasers = []
        keys = []
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
        return document.entities(below: blur.id, meeting: box).filter { !erasers.contains($0) }
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
        var text = ""
        for character in id.description { text.append(character == "@" ? "-" : character) }
        return text
    }
}
