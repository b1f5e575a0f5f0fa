import EaselModel

/// A document as SVG: every visible entity, bottom of the z-order first,
/// with its transform and style. Deterministic: the same document always
/// gives the same bytes (numbers rounded to hundredths and written without
/// floating-point printing, attributes in a fixed order).
public struct SVGRenderer: Sendable {
    public struct Options: Sendable {
        /// The part of the document to show; the entities' bounds with a
        /// margin when nil (a fixed frame keeps a filmstrip steady).
        public var frame: Rect?
        public var background: Color = .white
        /// Where an image entity's pixels are, from its blob's hash.
        public var blobPath: @Sendable (BlobHash) -> String = { "blobs/\($0)" }
        /// Whether the background (its colour and image) is drawn; without
        /// it, what is not drawn on stays transparent.
        public var drawsBackground = true
        /// The entities to draw (an export of the selection), with the
        /// erasers that cut them; every entity when nil. The default frame
        /// then holds them alone.
        public var only: Set<EntityID>?

        public init(frame: Rect? = nil) {
            self.frame = frame
        }
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// The frame a document gets by default: its entities' bounds and its
    /// background image's box with a 16-unit margin, or 1000 × 800 at the
    /// origin when it has neither.
    public static func frame(of document: Document) -> Rect {
        frame(of: document.entities, backgroundImage: document.background.image)
    }

    static func frame(of entities: [Entity], backgroundImage: BackgroundImage?) -> Rect {
        var bounds = entities.map { EntityGeometry($0).documentBounds }
        if let image = backgroundImage { bounds.append(BackgroundSVG(image: image, options: Options()).box) }
        guard var frame = bounds.first else { return Rect(minX: 0, minY: 0, maxX: 1000, maxY: 800) }
        for box in bounds.dropFirst() { frame = frame.union(box) }
        return Rect(minX: frame.minX - 16, minY: frame.minY - 16, maxX: frame.maxX + 16, maxY: frame.maxY + 16)
    }

    /// One entity's `<g>` element exactly as `render` writes it, with its
    /// `data-id`: what a live canvas replaces when that entity changes.
    public func fragment(of entity: Entity) -> String {
        var svg = ""
        EntitySVG(entity: entity, options: options).write(to: &svg)
        return svg
    }

    /// One entity's element as `render` writes it within a document: with
    /// the mask of the eraser above it, or an eraser's own masks and blur.
    public func fragment(of entity: Entity, layers: EraserLayers) -> String {
        var svg = ""
        EntitySVG(entity: entity, options: options, layers: layers).write(to: &svg)
        return svg
    }

    /// `fragment(of:layers:)`, with a stroke's outline from `growing`: a
    /// stroke drawn again with samples added costs only those samples.
    public func fragment(of entity: Entity, layers: EraserLayers, growing: inout GrowingInk) -> String {
        var writer = EntitySVG(entity: entity, options: options, layers: layers)
        if case .stroke(let stroke) = entity.content {
            writer.knownInkData = growing.pathData(of: entity.id, stroke, weight: entity.style.weight)
        }
        var svg = ""
        writer.write(to: &svg)
        return svg
    }

    /// The `transform` attribute `fragment(of:)` gives the entity's group:
    /// what a live canvas changes alone while a gesture moves the entity.
    public func transformAttribute(of entity: Entity) -> String {
        EntitySVG(entity: entity, options: options).transformAttribute
    }

    public func render(_ document: Document) -> String {
        let entities = drawn(document)
        let frame =
            options.frame
            ?? Self.frame(
                of: entities, backgroundImage: options.only == nil ? document.background.image : nil)
        let n = SVGNumber.format as (Float) -> String
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="\(n(frame.minX)) \(n(frame.minY)) \(n(frame.width)) \(n(frame.height))" \
            width="\(n(frame.width))" height="\(n(frame.height))">

            """
        let tools = Set(
            entities.compactMap { entity -> StrokeTool? in
                if case .stroke(let stroke) = entity.content { stroke.tool } else { nil }
            })
        let definitions = Self.filters(for: tools)
        if !definitions.isEmpty { svg += "<defs>\n" + definitions + "</defs>\n" }
        if options.drawsBackground {
            svg +=
                "<rect x=\"\(n(frame.minX))\" y=\"\(n(frame.minY))\" width=\"\(n(frame.width))\" height=\"\(n(frame.height))\""
            svg += backgroundColor(of: document).paint("fill") + "/>\n"
            svg += backgroundFragment(of: document)
        }
        let layers = EraserLayers(document)
        for entity in entities {
            EntitySVG(entity: entity, options: options, layers: layers).write(to: &svg)
        }
        svg += "</svg>\n"
        return svg
    }

    /// The entities `render` draws: all, or those `options.only` names and
    /// the pixel and blur erasers that cut them (an eraser drawn before
    /// erasures were recorded cuts everything beneath it).
    private func drawn(_ document: Document) -> [Entity] {
        guard let only = options.only else { return document.entities }
        return document.entities.filter { entity in
            if only.contains(entity.id) { return true }
            guard entity.isEraser, case .stroke(let stroke) = entity.content else { return false }
            return stroke.erases.map { erased in erased.contains { only.contains($0.entity) } } ?? true
        }
    }

    /// The filters strokes of these tools refer to, one line each: neon's
    /// glow, the pencil's grain, the blur eraser's blur.
    public static func filters(for tools: Set<StrokeTool>) -> String {
        var svg = ""
        if tools.contains(.neon) {
            svg += """
                <filter id="neon" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="3" result="glow"/>\
                <feMerge><feMergeNode in="glow"/><feMergeNode in="SourceGraphic"/></feMerge></filter>

                """
        }
        if tools.contains(.pencil) {
            // Paper grain: the stroke's alpha scaled by fine fractal noise.
            svg += """
                <filter id="grain" x="0" y="0" width="100%" height="100%"><feTurbulence type="fractalNoise" \
                baseFrequency="1.1" numOctaves="2" seed="3" result="noise"/><feColorMatrix in="noise" type="matrix" \
                values="0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 2.2 0 0 0 -0.5" result="grain"/>\
                <feComposite in="SourceGraphic" in2="grain" operator="in"/></filter>

                """
        }
        if tools.contains(.blur) { svg += "<filter id=\"blur\"><feGaussianBlur stdDeviation=\"4\"/></filter>\n" }
        return svg
    }
}
