import EaselModel

/// The document's background image as SVG: an `<image>` in its box centred
/// at the origin, named `background-image` so a blur eraser above it can
/// blur its real pixels (`<use>`), in a group a live canvas replaces
/// whole. Its colour is painted by whoever draws the frame.
struct BackgroundSVG {
    static let imageID = "background-image"

    let image: BackgroundImage
    let options: SVGRenderer.Options
    /// The blur erasers that recorded what they erased and whose box meets
    /// the image's: the background lies beneath every eraser, so each blurs
    /// it inside its ink, here in its own layer, beneath every entity.
    var blurs: [EntityID] = []

    /// The box the image fills, in document units.
    var box: Rect {
        Rect(minX: -image.width / 2, minY: -image.height / 2, maxX: image.width / 2, maxY: image.height / 2)
    }

    func write(to svg: inout String) {
        let n = SVGNumber.format as (Float) -> String
        let aspect =
            switch image.fit {
            case .contain: "xMidYMid meet"
            case .cover: "xMidYMid slice"
            case .stretch: "none"
            }
        svg += "<g class=\"background\" data-id=\"background\"><image id=\"\(Self.imageID)\""
        svg += " x=\"\(n(box.minX))\" y=\"\(n(box.minY))\" width=\"\(n(image.width))\" height=\"\(n(image.height))\""
        svg += " href=\"\(options.blobPath(image.blob).xmlEscaped)\" preserveAspectRatio=\"\(aspect)\"/>"
        if !blurs.isEmpty {
            svg += "<defs><mask id=\"background-blurs\" maskUnits=\"userSpaceOnUse\" x=\"-10000000\" y=\"-10000000\""
            svg += " width=\"20000000\" height=\"20000000\">"
            for blur in blurs { svg += "<use href=\"#ink-\(EraserLayers.name(blur))\" fill=\"#fff\"/>" }
            svg += "</mask></defs><g mask=\"url(#background-blurs)\" filter=\"url(#blur)\"><use href=\"#\(Self.imageID)\"/></g>"
        }
        svg += "</g>\n"
    }
}

extension SVGRenderer {
    /// The background image's group exactly as `render` writes it, or the
    /// empty string when the document has none.
    public func backgroundFragment(of document: Document) -> String {
        guard let image = document.background.image else { return "" }
        var background = BackgroundSVG(image: image, options: options)
        for erasure in document.erasures where erasure.tool == .blur {
            guard let eraser = document[erasure.eraser], EntityGeometry(eraser).documentBounds.intersects(background.box)
            else { continue }
            background.blurs.append(erasure.eraser)
        }
        var svg = ""
        background.write(to: &svg)
        return svg
    }

    /// The colour a document is drawn on: its own, or the options' default.
    public func backgroundColor(of document: Document) -> Color {
        document.background.color ?? options.background
    }
}
