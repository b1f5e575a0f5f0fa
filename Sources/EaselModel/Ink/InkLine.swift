/// A stroke's centre line as it is drawn: the raw samples resampled every
/// `spacing` units along their path, smoothed between the corners the hand
/// made, each point with the radius its tool gives it there.
///
/// Everything here is IEEE single-precision addition, subtraction,
/// multiplication, division and square root, in a fixed order, so the same
/// samples give the same bits on every platform (no `sin`, `cos` or `pow`,
/// whose last bit differs between C libraries). Docs/drawing.md explains
/// the steps and their constants.
///
/// Working by distance along the path, not by sample, is what makes the
/// line the same whether a device reports 60 or 240 samples a second; and
/// every step looks at most a bounded distance ahead, so adding a sample
/// changes only the last `settledDistance` units of the line.
public struct InkLine: Hashable, Sendable {
    public struct Vertex: Hashable, Sendable {
        public var point: Point
        public var radius: Float
        /// Distance along the raw path (through its corners' apexes) from
        /// the first sample.
        public var distance: Float
        /// A corner: smoothing keeps it exactly where the hand turned.
        public var isCorner: Bool
    }

    /// Empty for no samples; one vertex for a dot.
    public internal(set) var vertices: [Vertex] = []
    /// The raw path's length.
    public internal(set) var length: Float = 0

    /// Distance between resampled points, in document units.
    public static let spacing: Float = 2
    /// A path shorter than this is a dot.
    public static let dotReach: Float = 1
    /// Corners are judged between the chords this far behind and ahead of
    /// a sample.
    static let cornerReach: Float = 8
    /// A turn between those chords sharper than 60° is a corner (the
    /// cosine of the angle between them is below this): a tight curve with
    /// a little jitter turns less.
    static let cornerCosine: Float = 0.5
    /// Smoothing averages this many resampled points each side.
    static let smoothingReach = 3
    /// Speed is measured across this many resampled points each side.
    static let speedReach = 4
    static let smallestRadius: Float = 0.1
    /// A corner moves at most this far to where the turn's lines meet.
    static let apexReach: Float = 1
    /// A longer path is drawn as its samples, unsmoothed (see `init`).
    public static let longestPath: Float = 1_000_000
    /// Samples at most this far apart are joined by a curve, not a chord.
    static let curvedGap: Float = 24

    /// How far back from the end of the samples an appended sample can
    /// change the line (and its outline): the curve and its timing between
    /// the last two samples, the corner test's reach twice
    /// (a corner is the sharpest candidate within one reach), the
    /// smoothing, the speed window and the radius smoothing, and the
    /// taper. Everything before it is settled.
    public static func settledDistance(_ response: InkResponse, weight: Float) -> Float {
        curvedGap + 2 * cornerReach + spacing * Float(3 + smoothingReach + speedReach + smoothingReach)
            + response.taperLength(weight: weight)
    }

    public init(samples: [StrokeSample], tool: StrokeTool, weight: Float) {
        self.init(samples: samples, response: tool.ink, weight: weight)
    }

    public init(samples: [StrokeSample], response: InkResponse, weight: Float) {
        var builder = Builder(response: response, weight: weight)
        builder.append(contentsOf: samples)
        self = builder.line
    }

    init() {}

    init(vertices: [Vertex], length: Float) {
        self.vertices = vertices
        self.length = length
    }
}
