/// Numbers as the SVG writes them: rounded to hundredths, no trailing
/// zeros, never `-0`, never an exponent, and the same on every platform
/// (integer arithmetic, no locale, no float printing).
enum SVGNumber {
    static func format(_ value: Float) -> String {
        format(Double(value))
    }

    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let hundredths = Int64(max(-9e15, min(9e15, (value * 100).rounded())))
        let magnitude = hundredths.magnitude
        let whole = magnitude / 100
        let fraction = magnitude % 100
        var text = hundredths < 0 ? "-\(whole)" : "\(whole)"
        if fraction != 0 {
            text += fraction % 10 == 0 ? ".\(fraction / 10)" : (fraction < 10 ? ".0\(fraction)" : ".\(fraction)")
        }
        return text
    }

    /// To millionths, for factors whose error multiplies distances.
    static func precise(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let millionths = Int64(max(-9e12, min(9e12, (value * 1_000_000).rounded())))
        let magnitude = millionths.magnitude
        var text = millionths < 0 ? "-\(magnitude / 1_000_000)" : "\(magnitude / 1_000_000)"
        var fraction = magnitude % 1_000_000
        guard fraction != 0 else { return text }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let written = String(fraction)
        text += "." + String(repeating: "0", count: digits - written.count) + written
        return text
    }
}
