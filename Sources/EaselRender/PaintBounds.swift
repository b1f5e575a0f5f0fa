import EaselModel

extension SVGRenderer {
    /// Where an entity's drawing may put paint, in document units: its box
    /// and what the picture draws past it (an outline's half width, glyphs
    /// wider than the model's metrics, a framed text's padding, neon's glow,
    /// a blur). A canvas that caches the picture in tiles redraws this much
    /// when the entity changes, so generous beats tight.
    public static func paintBounds(of entity: Entity) -> Rect {
        var geometry = EntityGeometry(entity)
        let weight = max(entity.style.weight, 0)
        var margin: Float
        switch entity.content {
        case .emoji(_, let size): margin = size * 0.25
        case .text(let text):
            // The box gives a glyph 0.6 em; wide ones (CJK, emoji) take
            // about 1 em, so a long line overflows by up to 0.4 em a glyph,
            // all on one side when it is aligned left or right.
            var longest = 0
            for line in text.string.split(separator: "\n", omittingEmptySubsequences: false) {
                longest = max(longest, line.count)
            }
            margin = text.size * (0.6 + 0.4 * Float(longest)) + weight
        case .shape: margin = weight / 2 + 1
        case .image: margin = 1
        case .stroke(let stroke):
            // Neon's glow and the blur reach three deviations (3 and 4).
            margin =
                switch stroke.tool {
                case .neon: 10
                case .blur: 13
                default: 1
                }
        }
        if !margin.isFinite { margin = 0 }
        let box = geometry.localBox
        geometry.localBox = Rect(
            minX: box.minX - margin, minY: box.minY - margin, maxX: box.maxX + margin, maxY: box.maxY + margin)
        return geometry.documentBounds
    }

    /// `paintBounds(of:)` as four numbers, min x, min y, max x, max y,
    /// separated by spaces and written as the SVG writes numbers.
    public static func paintBoundsText(of entity: Entity) -> String {
        let bounds = paintBounds(of: entity)
        return SVGNumber.format(bounds.minX) + " " + SVGNumber.format(bounds.minY) + " " + SVGNumber.format(bounds.maxX)
            + " " + SVGNumber.format(bounds.maxY)
    }
}
