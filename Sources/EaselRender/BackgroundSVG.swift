import EaselModel

/// The document's background image as SVG: an `<image>` in its box centred
/// at the origin, named `background-image` so a blur eraser above it can
/// blur its real pixels (`<use>`), in a group a live canvas replaces
/// whole. Its colour is painted by whoever draws the frame.
struct BackgroundSVG {
    static let imageID = "background-image"

    let image: BackgroundImage
    let options: SVGRenderer.Options

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
        svg += " href=\"\(options.blobPath(image.blob).xmlEscaped)\" preserveAspectRatio=\"\(aspect)\"/></g>\n"
    }
}

extension SVGRenderer {
    /// The background image's group exactly as `render` writes it, or the
    /// empty string when the document has none.
    public func backgroundFragment(of document: Document) -> String {
        guard let image = document.background.image else { return "" }
        var svg = ""
        BackgroundSVG(image: image, options: options).write(to: &svg)
        return svg
    }

    /// The colour a document is drawn on: its own, or the options' default.
    public func backgroundColor(of document: Document) -> Color {
        document.background.color ?? options.background
    }
}
