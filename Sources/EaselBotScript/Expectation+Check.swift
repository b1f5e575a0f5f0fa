import EaselModel

extension Expectation {
    /// The fields `expect selected` can read.
    static let fields: Set<String> = [
        "kind", "x", "y", "scale", "rotation", "color", "fill", "weight", "text", "font", "size", "style", "align",
        "emoji", "shape",
    ]

    /// Nil when the document meets the expectation; otherwise what it found.
    func failure(in editor: Editor) -> String? {
        let document = editor.document
        switch self {
        case .count(let expected):
            let count = document.visibleCount
            return count == expected ? nil : "expected \(expected) entities, found \(count)"
        case .stateHash(let expected):
            let hash = document.stateHash
            return expected == hash.hex || expected == hash.emojiKey
                ? nil : "expected the state hash \(expected), found \(hash.hex) \(hash.emojiKey)"
        case .selected(let field, let expected):
            let selected = editor.state.selection.compactMap { document[$0] }
            guard !selected.isEmpty else { return "expected a selection to read \(field) from; nothing is selected" }
            for entity in selected {
                let value = Self.describe(field, of: entity)
                guard value == expected || Self.sameNumber(value, expected) else {
                    return "expected \(field) \(expected), found \(value ?? "none") on \(entity.id)"
                }
            }
            return nil
        }
    }

    private static func sameNumber(_ found: String?, _ expected: String) -> Bool {
        guard let found = found.flatMap(Float.init), let expected = Float(expected) else { return false }
        return abs(found - expected) <= 1e-3 * max(1, abs(expected))
    }

    /// A field's value as a script writes it.
    static func describe(_ field: String, of entity: Entity) -> String? {
        switch (field, entity.content) {
        case ("kind", _): return entity.kind.description
        case ("x", _): return String(entity.transform.x)
        case ("y", _): return String(entity.transform.y)
        case ("scale", _): return String(entity.transform.scale)
        case ("rotation", _): return String(entity.transform.rotation)
        case ("color", _): return hex(entity.style.color)
        case ("fill", _): return hex(entity.style.fill)
        case ("weight", _): return String(entity.style.weight)
        case ("emoji", .emoji(let character, _)): return character
        case ("size", .emoji(_, let size)): return String(size)
        case ("shape", .shape(let shape, _, _)): return String(describing: shape)
        case ("text", .text(let text)): return text.string
        case ("font", .text(let text)): return text.font
        case ("size", .text(let text)): return String(text.size)
        case ("style", .text(let text)): return String(describing: text.style)
        case ("align", .text(let text)): return String(describing: text.alignment)
        default: return nil
        }
    }

    static func hex(_ color: Color) -> String {
        let digits = String(color.rawValue, radix: 16)
        return "#" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
