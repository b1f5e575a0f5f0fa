import Foundation

/// The latency distributions of a run as an SVG chart: for each series,
/// milliseconds at every percentile from 0 to 99.9, so the tail is as
/// visible as the middle.
enum LatencyPlot {
    static let percentiles: [Double] = Array(stride(from: 0.0, through: 99.0, by: 1.0)) + [99.5, 99.9]

    static func svg(_ series: [(name: String, milliseconds: [Double])], title: String) -> String {
        let (width, height) = (800.0, 420.0)
        let (left, right, top, bottom) = (60.0, 20.0, 40.0, 50.0)
        let curves = series.filter { !$0.milliseconds.isEmpty }.map { entry in
            (entry.name, percentiles.map { percentile(entry.milliseconds, $0) })
        }
        let highest = max(curves.flatMap(\.1).max() ?? 1, 0.001)
        // The percentile axis is stretched towards the tail: x = -log10(1 - p).
        func x(_ percent: Double) -> Double {
            left + (width - left - right) * (-log10(1 - percent / 100) / 3)
        }
        func y(_ milliseconds: Double) -> Double {
            height - bottom - (height - top - bottom) * milliseconds / highest
        }
        var parts = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
            "<text x=\"\(left)\" y=\"24\" font-size=\"15\">\(escaped(title))</text>",
            "<line x1=\"\(left)\" y1=\"\(height - bottom)\" x2=\"\(width - right)\" y2=\"\(height - bottom)\" stroke=\"black\"/>",
            "<line x1=\"\(left)\" y1=\"\(top)\" x2=\"\(left)\" y2=\"\(height - bottom)\" stroke=\"black\"/>",
        ]
        for percent in [0.0, 50, 90, 99, 99.9] {
            parts.append(
                "<text x=\"\(x(percent))\" y=\"\(height - bottom + 18)\" text-anchor=\"middle\">p\(label(percent))</text>"
            )
        }
        for step in 0...4 {
            let value = highest * Double(step) / 4
            parts.append(
                "<text x=\"\(left - 6)\" y=\"\(y(value) + 4)\" text-anchor=\"end\">\(String(format: "%.1f", value))</text>"
            )
        }
        parts.append(
            "<text x=\"\((width + left) / 2)\" y=\"\(height - 10)\" text-anchor=\"middle\">percentile (ms on the left)</text>"
        )
        let colours = ["#1f6feb", "#d1242f", "#1a7f37", "#8250df"]
        for (index, curve) in curves.enumerated() {
            let colour = colours[index % colours.count]
            let points = zip(percentiles, curve.1).map { String(format: "%.1f,%.1f", x($0), y($1)) }
            parts.append(
                "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>"
            )
            parts.append(
                "<text x=\"\(left + 12)\" y=\"\(top + 16 + Double(index) * 16)\" fill=\"\(colour)\">\(escaped(curve.0))</text>"
            )
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    private static func label(_ percent: Double) -> String {
        percent == percent.rounded() ? String(Int(percent)) : String(percent)
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
