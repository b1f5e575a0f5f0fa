/// How a tool turns a hand's motion into width: the range its weight
/// slider offers, and how much speed thins the line, pressure thickens it
/// and its ends taper. Width is `weight / 2 × speed factor × pressure
/// factor × taper`, each factor a plain function below, so every client
/// computes the same radius from the same samples.
public struct InkResponse: Hashable, Sendable {
    /// The weights a slider offers for the tool, in document units.
    public var weights: ClosedRange<Float>
    /// The weight a new drawing starts with.
    public var defaultWeight: Float
    /// The fraction of the width a very fast stroke loses (0: none).
    public var speedThinning: Float
    /// The speed, in document units a second, at which half of that is lost.
    public var halfThinningSpeed: Float
    /// How much pressure moves the width: the factor is `1 + gain ×
    /// (pressure − 0.5)`, so without pressure (0.5) it is 1.
    public var pressureGain: Float
    /// The length of each tapered end, in multiples of the weight (0: none),
    /// at most `InkResponse.longestTaper` document units.
    public var taper: Float
    /// The width a taper starts from, as a fraction of the full width.
    public var taperFloor: Float

    /// A taper never runs longer than this, in document units, so adding a
    /// sample changes only a bounded end of the stroke.
    public static let longestTaper: Float = 48

    /// The factor speed gives the width: 1 at rest, falling towards
    /// `1 − speedThinning` as the speed grows. Never increases with speed.
    public func speedFactor(_ speed: Float) -> Float {
        guard speed > 0 else { return 1 }
        return 1 - speedThinning * (speed / (speed + halfThinningSpeed))
    }

    /// The factor pressure (0...1; 0.5 when the device reports none) gives
    /// the width. Never decreases with pressure.
    public func pressureFactor(_ pressure: Float) -> Float {
        1 + pressureGain * (min(max(pressure, 0), 1) - 0.5)
    }

    /// The taper's length for a stroke of this weight.
    public func taperLength(weight: Float) -> Float {
        min(taper * weight, Self.longestTaper)
    }

    /// The factor an end's taper gives a point `distance` from that end.
    public func taperFactor(distance: Float, weight: Float) -> Float {
        let length = taperLength(weight: weight)
        guard length > 0, distance < length else { return 1 }
        return taperFloor + (1 - taperFloor) * (max(distance, 0) / length)
    }
}

extension StrokeTool {
    /// The tool's response. Pen and brush follow speed and pressure, the
    /// brush more; the marker and neon keep one width (neon swells a little
    /// with pressure); the pencil is thin and follows both a little; the
    /// erasers keep one width.
    public var ink: InkResponse {
        switch self {
        case .pen:
            InkResponse(
                weights: 1...16, defaultWeight: 3, speedThinning: 0.55, halfThinningSpeed: 700, pressureGain: 0.9,
                taper: 2, taperFloor: 0.3)
        case .brush:
            InkResponse(
                weights: 4...48, defaultWeight: 14, speedThinning: 0.75, halfThinningSpeed: 450, pressureGain: 1.5,
                taper: 2.5, taperFloor: 0.15)
        case .marker:
            InkResponse(
                weights: 6...48, defaultWeight: 16, speedThinning: 0, halfThinningSpeed: 1, pressureGain: 0, taper: 0,
                taperFloor: 1)
        case .neon:
            InkResponse(
                weights: 2...20, defaultWeight: 6, speedThinning: 0, halfThinningSpeed: 1, pressureGain: 0.4,
                taper: 0, taperFloor: 1)
        case .pencil:
            InkResponse(
                weights: 0.5...6, defaultWeight: 1.5, speedThinning: 0.25, halfThinningSpeed: 900, pressureGain: 0.6,
                taper: 3, taperFloor: 0.5)
        case .eraser, .blur:
            InkResponse(
                weights: 6...96, defaultWeight: 24, speedThinning: 0, halfThinningSpeed: 1, pressureGain: 0,
                taper: 0, taperFloor: 1)
        }
    }
}
