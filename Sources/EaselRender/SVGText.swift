import EaselModel

extension String {
    /// Safe inside an XML or HTML attribute value or element.
    public var xmlEscaped: String {
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for character in unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            // XML 1.0 allows no other control characters, even escaped.
            case "\t", "\n", "\r": escaped.unicodeScalars.append(character)
            case _ where character.value < 0x20: escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

extension Color {
    /// `#rrggbb`; the alpha goes in a separate opacity attribute.
    var svgHex: String {
        let digits = String(rawValue >> 8, radix: 16)
        return "#" + String(repeating: "0", count: 6 - digits.count) + digits
    }

    var opacity: Double { Double(alpha) / 255 }

    /// A paint attribute and, when not opaque, its opacity.
    func paint(_ attribute: String) -> String {
        guard alpha > 0 else { return " \(attribute)=\"none\"" }
        var text = " \(attribute)=\"\(svgHex)\""
        if alpha < 255 { text += " \(attribute)-opacity=\"\(SVGNumber.format(opacity))\"" }
        return text
    }
}
