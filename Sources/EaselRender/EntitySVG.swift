import EaselModel

/// One entity as an SVG group: the entity's transform on a `<g>` that
/// names it, its content drawn in its local frame inside.
struct EntitySVG {
    let entity: Entity
    let options: SVGRenderer.Options
    var layers: EraserLayers = .none
    /// A stroke's outline as path data, when it is already known
    /// (`GrowingInk`).
    var knownInkData: String?

    private func n(_ value: Float) -> String { SVGNumber.format(value) }

    /// The group that names the entity. Beneath an eraser it wears that
    /// eraser's mask and holds its drawing in a group of its own (a mask
    /// set beside a transform would move with it); otherwise the one group
    /// does both.
    func write(to svg: inout String) {
        let geometry = EntityGeometry(entity)
        if case .stroke(let stroke) = entity.content, stroke.tool.erasesPixels {
            if stroke.erases == nil { writeEraser(stroke, geometry, to: &svg) } else { writeInk(stroke, geometry, to: &svg) }
            return
        }
        let name = EraserLayers.name(entity.id)
        let opening = "<g class=\"\(entity.kind)\" data-id=\"\(entity.id)\""
        let drawing = "id=\"e-\(name)\" transform=\"\(transform(geometry))\">"
        let masked = layers.firstAbove(entity).map { layers.erasers[$0] }
        if let masked {
            svg += opening + " mask=\"url(#below-\(EraserLayers.name(masked)))\"><g " + drawing
        } else {
            svg += opening + " " + drawing
        }
        if let holes = layers.holes[entity.id] {
            writeHoles(holes, geometry, to: &svg)
        } else {
            writeContent(geometry, to: &svg)
        }
        svg += masked == nil ? "</g>\n" : "</g></g>\n"
    }

    /// The entity through a mask of its own that clears every eraser's ink
    /// carried into its frame; under a blur eraser's ink it is drawn again,
    /// blurred, through a mask of that ink less the pixel erasers'. Inside
    /// the group that carries the entity's transform, so both move with it.
    private func writeHoles(_ holes: [EraserLayers.Hole], _ geometry: EntityGeometry, to svg: inout String) {
        let name = EraserLayers.name(entity.id)
        let cleared = holes.filter { !$0.blurs }
        let blurred = holes.filter { $0.blurs }
        svg += "<defs><mask id=\"holes-\(name)\" \(Self.everywhere)>\(Self.whiteEverywhere)"
        for hole in holes { svg += use(hole, geometry, fill: "#000") }
        svg += "</mask>"
        if !blurred.isEmpty {
            svg += "<mask id=\"blurs-\(name)\" \(Self.everywhere)>"
            for hole in blurred { svg += use(hole, geometry, fill: "#fff") }
            for hole in cleared { svg += use(hole, geometry, fill: "#000") }
            svg += "</mask>"
        }
        svg += "</defs><g mask=\"url(#holes-\(name))\">"
        writeContent(geometry, to: &svg)
        svg += "</g>"
        if !blurred.isEmpty {
            svg += "<g mask=\"url(#blurs-\(name))\" filter=\"url(#blur)\">"
            writeContent(geometry, to: &svg)
            svg += "</g>"
        }
    }

    /// An eraser's ink in the entity's frame: the inverse of where the
    /// entity stood when erased, then the ink as drawn in the document.
    private func use(_ hole: EraserLayers.Hole, _ geometry: EntityGeometry, fill: String) -> String {
        var then = geometry
        then.position = Point(x: hole.transform.x, y: hole.transform.y)
        then.scale = hole.transform.scale
        then.rotation = hole.transform.rotation
        let inverse = inverseTransform(then)
        return "<use href=\"#ink-\(EraserLayers.name(hole.eraser))\" fill=\"\(fill)\" transform=\"\(inverse)\"/>"
    }

    /// An eraser that recorded what it erased: only its ink, as a definition
    /// the holes of those entities refer to.
    private func writeInk(_ stroke: StrokeContent, _ geometry: EntityGeometry, to svg: inout String) {
        let name = EraserLayers.name(entity.id)
        svg += "<g class=\"stroke\" data-id=\"\(entity.id)\"><defs><path id=\"ink-\(name)\" transform=\"\(transform(geometry))\""
        svg += " d=\"\(inkData(stroke))\"/></defs></g>\n"
    }

    private static let everywhere =
        "maskUnits=\"userSpaceOnUse\" x=\"-10000000\" y=\"-10000000\" width=\"20000000\" height=\"20000000\""
    private static let whiteEverywhere =
        "<rect x=\"-10000000\" y=\"-10000000\" width=\"20000000\" height=\"20000000\" fill=\"#fff\"/>"

    /// An eraser drawn before erasures were recorded: its ink and its mask
    /// as definitions, and for the blur eraser the entities beneath it,
    /// blurred inside its ink.
    private func writeEraser(_ stroke: StrokeContent, _ geometry: EntityGeometry, to svg: inout String) {
        let name = EraserLayers.name(entity.id)
        let isBlur = stroke.tool == .blur
        let above = layers.firstAbove(entity).map { layers.erasers[$0] }
        svg += "<g class=\"stroke\" data-id=\"\(entity.id)\""
        if isBlur, let above { svg += " mask=\"url(#below-\(EraserLayers.name(above)))\"" }
        svg += "><defs><path id=\"ink-\(name)\" transform=\"\(transform(geometry))\""
        svg += " d=\"\(inkData(stroke))\"/>"
        let everywhere = "maskUnits=\"userSpaceOnUse\" x=\"-10000000\" y=\"-10000000\" width=\"20000000\" height=\"20000000\""
        svg += "<mask id=\"below-\(name)\" \(everywhere)>"
        svg += "<rect x=\"-10000000\" y=\"-10000000\" width=\"20000000\" height=\"20000000\" fill=\"#fff\"/>"
        let from = layers.index(of: entity.id)
        let covering = from.map { Array(layers.erasers[$0...]) } ?? [entity.id]
        for eraser in covering { svg += "<use href=\"#ink-\(EraserLayers.name(eraser))\" fill=\"#000\"/>" }
        svg += "</mask>"
        if isBlur {
            svg += "<mask id=\"in-\(name)\" \(everywhere)><use href=\"#ink-\(name)\" fill=\"#fff\"/></mask>"
        }
        svg += "</defs>"
        if isBlur {
            svg += "<g mask=\"url(#in-\(name))\" filter=\"url(#blur)\">"
            if layers.blursBackground(entity) { svg += "<use href=\"#\(BackgroundSVG.imageID)\"/>" }
            for id in layers.blurred(by: entity) { svg += "<use href=\"#e-\(EraserLayers.name(id))\"/>" }
            svg += "</g>"
        }
        svg += "</g>\n"
    }

    private func inkData(_ stroke: StrokeContent) -> String {
        knownInkData ?? InkPath.data(InkOutline(stroke, weight: entity.style.weight))
    }

    private func writeContent(_ geometry: EntityGeometry, to svg: inout String) {
        switch entity.content {
        case .emoji(let character, let size):
            svg += "<text font-size=\"\(n(size))\" text-anchor=\"middle\" dominant-baseline=\"central\">"
            svg += character.xmlEscaped + "</text>"
        case .shape(let shape, let width, let height):
            svg += self.shape(shape, width: width, height: height)
        case .text(let text):
            svg += self.text(text, box: geometry.localBox)
        case .stroke(let stroke):
            writeStroke(stroke, to: &svg)
        case .image(let blob, let width, let height):
            let corner = "x=\"\(n(-width / 2))\" y=\"\(n(-height / 2))\" width=\"\(n(width))\" height=\"\(n(height))\""
            // The outline shows where the image goes even when its blob is missing.
            svg += "<rect \(corner) fill=\"#eeeeee\" stroke=\"#999999\" stroke-dasharray=\"4 4\"/>"
            svg += "<image \(corner) href=\"\(options.blobPath(blob).xmlEscaped)\" preserveAspectRatio=\"none\"/>"
        }
    }

    /// The `transform` attribute of the entity's group.
    var transformAttribute: String { transform(EntityGeometry(entity)) }

    /// The inverse of `transform(_:)`: `pivot + rotate⁻¹((document −
    /// position − pivot) / scale)`, right to left. The scale is written to
    /// millionths, since 1/scale at hundredths would shift a hole far from
    /// the entity's pivot.
    private func inverseTransform(_ geometry: EntityGeometry) -> String {
        let x = geometry.position.x + geometry.pivot.x
        let y = geometry.position.y + geometry.pivot.y
        var parts: [String] = []
        if geometry.pivot != .zero { parts.append("translate(\(n(geometry.pivot.x)) \(n(geometry.pivot.y)))") }
        if geometry.scale != 1 { parts.append("scale(\(SVGNumber.precise(1 / Double(geometry.scale))))") }
        let degrees = Double(geometry.rotation) * 180 / Double.pi
        if SVGNumber.format(degrees) != "0" { parts.append("rotate(\(SVGNumber.format(-degrees)))") }
        parts.append("translate(\(n(-x)) \(n(-y)))")
        return parts.joined(separator: " ")
    }

    /// `position + pivot + rotate(scale × (local − pivot))`, as SVG
    /// applies transforms: right to left.
    private func transform(_ geometry: EntityGeometry) -> String {
        let x = geometry.position.x + geometry.pivot.x
        let y = geometry.position.y + geometry.pivot.y
        var parts = ["translate(\(n(x)) \(n(y)))"]
        let degrees = Double(geometry.rotation) * 180 / Double.pi
        if SVGNumber.format(degrees) != "0" { parts.append("rotate(\(SVGNumber.format(degrees)))") }
        if geometry.scale != 1 { parts.append("scale(\(n(geometry.scale)))") }
        if geometry.pivot != .zero { parts.append("translate(\(n(-geometry.pivot.x)) \(n(-geometry.pivot.y)))") }
        return parts.joined(separator: " ")
    }

    private var outline: String {
        entity.style.fill.paint("fill") + entity.style.color.paint("stroke")
            + " stroke-width=\"\(n(entity.style.weight))\""
    }

    private func shape(_ shape: ShapeKind, width: Float, height: Float) -> String {
        switch shape {
        case .rectangle:
            "<rect x=\"\(n(-width / 2))\" y=\"\(n(-height / 2))\" width=\"\(n(width))\" height=\"\(n(height))\"\(outline)/>"
        case .ellipse:
            "<ellipse rx=\"\(n(width / 2))\" ry=\"\(n(height / 2))\"\(outline)/>"
        case .arrow:
            "<polygon points=\"\(ShapePaths.arrow(width: width, height: height))\"\(outline) stroke-linejoin=\"round\"/>"
        case .star:
            "<polygon points=\"\(ShapePaths.star(width: width, height: height))\"\(outline) stroke-linejoin=\"round\"/>"
        case .bubble:
            "<path d=\"\(ShapePaths.bubble(width: width, height: height))\"\(outline)/>"
        }
    }

    /// Lines anchored by the alignment inside the text's box (the model's
    /// approximate metrics: 0.6 em a glyph, 1.25 em a line).
    private func text(_ text: TextContent, box: Rect) -> String {
        let (anchor, x): (String, Float) =
            switch text.alignment {
            case .left: ("start", box.minX)
            case .center: ("middle", 0)
            case .right: ("end", box.maxX)
            }
        var svg = ""
        let color = entity.style.color
        var paint = color.paint("fill")
        switch text.style {
        case .regular:
            break
        case .outlined:
            // The letters in the fill (white when none), outlined in the colour.
            let fill = entity.style.fill.alpha > 0 ? entity.style.fill : .white
            paint =
                fill.paint("fill") + color.paint("stroke")
                + " stroke-width=\"\(n(max(1, text.size / 12)))\" paint-order=\"stroke\""
        case .framed:
            let fill = entity.style.fill.alpha > 0 ? entity.style.fill : .white
            let pad = text.size / 4
            svg += "<rect x=\"\(n(box.minX - pad))\" y=\"\(n(box.minY - pad))\" width=\"\(n(box.width + 2 * pad))\""
            svg +=
                " height=\"\(n(box.height + 2 * pad))\" rx=\"\(n(pad))\"" + fill.paint("fill") + color.paint("stroke")
            svg += " stroke-width=\"\(n(max(1, entity.style.weight)))\"/>"
        }
        // Spaces as typed: SVG would otherwise fold runs of them and drop
        // those at a line's ends, unlike the box measured and the editor.
        svg +=
            "<text xml:space=\"preserve\" font-family=\"\(text.font.xmlEscaped)\" font-size=\"\(n(text.size))\""
            + " text-anchor=\"\(anchor)\"\(paint)>"
        let lines = text.string.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            // Baselines: one em below each line's top, lines 1.25 em apart.
            let baseline = box.minY + text.size * (1 + 1.25 * Float(index)) - text.size * 0.2
            svg += "<tspan x=\"\(n(x))\" y=\"\(n(baseline))\">\(String(line).xmlEscaped)</tspan>"
        }
        return svg + "</text>"
    }

    /// The stroke's ink outline (Docs/drawing.md) filled in its colour; the
    /// tool sets how it is painted.
    private func writeStroke(_ stroke: StrokeContent, to svg: inout String) {
        let color = entity.style.color
        var extra = ""
        // Whether `extra` sets the opacity itself, the colour's alpha included.
        var setsOpacity = false
        switch stroke.tool {
        case .pen, .brush: break
        case .marker:
            extra = " fill-opacity=\"\(SVGNumber.format(0.6 * color.opacity))\""
            setsOpacity = true
        case .pencil:
            extra = " fill-opacity=\"\(SVGNumber.format(0.85 * color.opacity))\" filter=\"url(#grain)\""
            setsOpacity = true
        case .neon: extra = " filter=\"url(#neon)\""
        case .eraser, .blur: return  // drawn by writeEraser
        }
        let data = inkData(stroke)
        guard !data.isEmpty else { return }
        // The tool's opacity already includes the colour's alpha.
        let paint = setsOpacity && color.alpha < 255 ? " fill=\"\(color.svgHex)\"" : color.paint("fill")
        // Appended piece by piece: a live stroke's data is long.
        svg += "<path d=\""
        svg += data
        svg += "\"" + paint + extra + "/>"
    }
}
