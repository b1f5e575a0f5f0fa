import EaselModel

/// The outlines of the strokes drawn last, kept so that a stroke that
/// grows — a live stroke, this page's or a peer's — costs only its new
/// samples: its line and outline are extended (`InkLine.Builder`,
/// `InkOutline.Builder`) and its path data written again only past the
/// pieces that settled. The data is bit for bit what `render` writes.
///
/// Only the last `capacity` strokes are kept: a live stroke is drawn again
/// sample after sample, while a board's other strokes are drawn once, and
/// their builders would hold several times their samples.
public struct GrowingInk: Sendable {
    public static let capacity = 8

    private struct Stroke: Sendable {
        let id: EntityID
        let tool: StrokeTool
        let endCap: EndCap
        let weight: Float
        /// The samples outlined so far, to tell growth from any other change.
        var samples: [StrokeSample] = []
        var line: InkLine.Builder
        var outline: InkOutline.Builder
        /// The path data of the outline: of its first `settledPieces`
        /// pieces, `settledLength` bytes, then of the rest. Handed out
        /// shared and written again once let go, so it is seldom copied.
        var data = ""
        var settledLength = 0
        var settledPieces = 0

        init(id: EntityID, stroke: StrokeContent, weight: Float) {
            self.id = id
            tool = stroke.tool
            endCap = stroke.endCap
            self.weight = weight
            line = InkLine.Builder(tool: stroke.tool, weight: weight)
            outline = InkOutline.Builder(endCap: stroke.endCap, weight: weight)
        }

        /// Whether `stroke` is this one with samples added at the end.
        func grows(into stroke: StrokeContent, weight: Float) -> Bool {
            guard stroke.tool == tool, stroke.endCap == endCap, weight.bitPattern == self.weight.bitPattern,
                stroke.samples.count >= samples.count
            else { return false }
            return stroke.samples[..<samples.count].elementsEqual(samples)
        }

        mutating func grow(into stroke: StrokeContent) -> String {
            let added = stroke.samples[samples.count...]
            samples.append(contentsOf: added)
            line.append(contentsOf: added)
            outline.update(line.line, unchangedVertices: line.unchangedVertices)
            let pieces = outline.outline.pieces
            if settledPieces > outline.unchangedPieces {
                settledLength = 0
                settledPieces = 0
            }
            data.removeSubrange(data.utf8.index(data.startIndex, offsetBy: settledLength)...)
            while settledPieces < outline.unchangedPieces {
                InkPath.append(pieces[settledPieces], to: &data)
                settledPieces += 1
            }
            settledLength = data.utf8.count
            for piece in pieces[settledPieces...] { InkPath.append(piece, to: &data) }
            return data
        }
    }

    /// Most recently drawn last.
    private var strokes: [Stroke] = []

    public init() {}

    /// The path data of the outline of `stroke`, entity `id`'s content,
    /// drawn with `weight`.
    public mutating func pathData(of id: EntityID, _ stroke: StrokeContent, weight: Float) -> String {
        if let position = strokes.firstIndex(where: { $0.id == id }) {
            strokes.append(strokes.remove(at: position))
            if !strokes[strokes.count - 1].grows(into: stroke, weight: weight) {
                strokes[strokes.count - 1] = Stroke(id: id, stroke: stroke, weight: weight)
            }
        } else {
            strokes.append(Stroke(id: id, stroke: stroke, weight: weight))
            if strokes.count > Self.capacity { strokes.removeFirst() }
        }
        // Grown in place, where nothing else holds its arrays: nothing is copied.
        return strokes[strokes.count - 1].grow(into: stroke)
    }
}
