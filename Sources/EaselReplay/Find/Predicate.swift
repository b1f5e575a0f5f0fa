import EaselModel

/// A statement about a document that `--find` looks for the first position
/// of. The grammar (Docs/debugging.md):
///
///     missing ID          created, and not visible now (deleted)
///     exists ID           visible
///     created ID          created at some point (stays true: monotone)
///     ID.FIELD OP VALUE   a field of a visible entity, e.g. e3@00000000000000c1.x > 100
///     count OP N          visible entities
///     known OP N          entities ever created (monotone for > and >=)
///
/// OP is one of = != < <= > >=. Numbers compare as numbers; other fields
/// as the text `--print` shows (colours #rrggbbaa, enums by name).
public enum Predicate: Hashable, Sendable, CustomStringConvertible {
    case missing(EntityID)
    case exists(EntityID)
    case created(EntityID)
    case field(EntityID, name: String, Comparison, String)
    case count(Comparison, Int)
    case known(Comparison, Int)

    public enum Comparison: String, CaseIterable, Hashable, Sendable {
        case equal = "="
        case notEqual = "!="
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case less = "<"
        case greater = ">"

        func holds<Value: Comparable>(_ left: Value, _ right: Value) -> Bool {
            switch self {
            case .equal: left == right
            case .notEqual: left != right
            case .less: left < right
            case .lessOrEqual: left <= right
            case .greater: left > right
            case .greaterOrEqual: left >= right
            }
        }
    }

    /// True when, once it holds, it holds at every later position, whatever
    /// the ops: then `--find` may bisect. Entities are never forgotten, so
    /// creation is monotone; visibility and fields are not (restore, undo).
    public var isMonotone: Bool {
        switch self {
        case .created: true
        case .known(let comparison, _): comparison == .greater || comparison == .greaterOrEqual
        case .missing, .exists, .field, .count: false
        }
    }

    public func holds(in document: Document) -> Bool {
        switch self {
        case .missing(let id): document.kind(of: id) != nil && !document.isVisible(id)
        case .exists(let id): document.isVisible(id)
        case .created(let id): document.kind(of: id) != nil
        case .count(let comparison, let number): comparison.holds(document.visibleCount, number)
        case .known(let comparison, let number):
            comparison.holds(document.knownEntities.lazy.filter { document.kind(of: $0) != nil }.count, number)
        case .field(let id, let name, let comparison, let expected):
            holds(field: name, of: id, comparison, expected, in: document)
        }
    }

    private func holds(
        field name: String, of id: EntityID, _ comparison: Comparison, _ expected: String, in document: Document
    ) -> Bool {
        guard document.isVisible(id), let fields = EntityFields(id, in: document), let actual = fields[name] else {
            return false
        }
        if let left = Float(actual), let right = Float(expected) { return comparison.holds(left, right) }
        return comparison.holds(actual, expected)
    }

    public var description: String {
        switch self {
        case .missing(let id): "missing \(id)"
        case .exists(let id): "exists \(id)"
        case .created(let id): "created \(id)"
        case .field(let id, let name, let comparison, let value): "\(id).\(name) \(comparison.rawValue) \(value)"
        case .count(let comparison, let number): "count \(comparison.rawValue) \(number)"
        case .known(let comparison, let number): "known \(comparison.rawValue) \(number)"
        }
    }
}
