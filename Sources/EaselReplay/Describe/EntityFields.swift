import EaselModel

/// An entity as named values: what `--step` shows, what `--diff` compares
/// and what `--find` predicates test. Names are the log's field names.
public struct EntityFields: Hashable, Sendable {
    public var id: EntityID
    /// In a fixed order: kind, the common fields, then the kind's own.
    public var values: [(name: String, value: String)]

    public static func == (lhs: EntityFields, rhs: EntityFields) -> Bool {
        lhs.id == rhs.id && lhs.values.elementsEqual(rhs.values) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        for (name, value) in values {
            hasher.combine(name)
            hasher.combine(value)
        }
    }

    public subscript(name: String) -> String? {
        values.first { $0.name == name }?.value
    }

    /// The names a predicate may use, beyond the model's field names.
    public static let derivedNames = ["kind", "samples"]

    /// A visible entity's fields, or those of a deleted one (`alive` tells).
    public init?(_ id: EntityID, in document: Document) {
        guard let kind = document.kind(of: id) else { return nil }
        self.id = id
        var values: [(String, String)] = [("kind", kind.description), ("alive", String(document.isVisible(id)))]
        let order: [FieldID] = [.x, .y, .scale, .rotation, .zKey, .color, .fill, .weight]
        let own = FieldID.allCases.filter { kind.has($0) && !order.contains($0) }
        for field in order + own {
            if let register = document.register(field, of: id) {
                values.append((field.description, FieldText.value(of: register.value)))
            }
        }
        if case .stroke(let stroke) = document[id]?.content {
            values.append(("samples", String(stroke.samples.count)))
        }
        self.values = values
    }

    /// Names and values as `name=value` pairs on one line.
    public var line: String {
        values.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
    }
}
