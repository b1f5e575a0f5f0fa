import EaselModel
import Foundation

/// How replay writes values: the way the JSON log writes them (numbers in
/// their shortest exact form, colours as #rrggbbaa, enums by name), so what
/// `--print` shows can be pasted into a `--find` predicate.
enum FieldText {
    static func value(of field: Field) -> String {
        switch field {
        case .x(let value), .y(let value), .scale(let value), .rotation(let value),
            .weight(let value), .size(let value), .width(let value), .height(let value):
            number(value)
        case .zKey(let key): key.string
        case .color(let color), .fill(let color): color.description
        case .character(let string), .text(let string), .font(let string): string
        case .textStyle(let value): "\(value)"
        case .alignment(let value): "\(value)"
        case .shape(let value): "\(value)"
        case .tool(let value): "\(value)"
        case .endCap(let value): "\(value)"
        case .blob(let hash): hash.description
        case .fit(let value): "\(value)"
        case .erases(let erased): "[" + erased.map { $0.entity.description }.joined(separator: " ") + "]"
        }
    }

    static func number(_ value: Float) -> String {
        // 12.0 reads better as 12; the value is the same.
        value == value.rounded() && abs(value) < 1e7 ? String(Int(value)) : value.description
    }

    /// A string shortened for one line of output, quoted when it is text.
    static func brief(_ field: Field, limit: Int = 24) -> String {
        let text = value(of: field)
        switch field {
        case .text, .font, .character:
            let shown = text.count > limit ? text.prefix(limit) + "…" : Substring(text)
            return "\"" + shown.replacingOccurrences(of: "\n", with: "\\n") + "\""
        default:
            return text
        }
    }
}
