import EaselModel

extension Predicate {
    /// Reads a predicate; the error says what was expected.
    public init(parsing text: String) throws(ReplayError) {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first else { throw ReplayError("an empty predicate; \(Self.grammar)") }
        switch first {
        case "missing", "exists", "created":
            guard words.count == 2 else { throw ReplayError("\(first) takes one entity ID; \(Self.grammar)") }
            let id = try Self.entityID(words[1])
            self = first == "missing" ? .missing(id) : first == "exists" ? .exists(id) : .created(id)
        case "count", "known":
            guard words.count == 3, let comparison = Comparison(rawValue: words[1]), let number = Int(words[2]) else {
                throw ReplayError("\(first) takes a comparison and a number, e.g. \(first) > 10")
            }
            self = first == "count" ? .count(comparison, number) : .known(comparison, number)
        default:
            self = try Self.field(text)
        }
    }

    static let grammar =
        "a predicate is one of: missing ID, exists ID, created ID, ID.FIELD OP VALUE, count OP N, known OP N (OP: = != < <= > >=)"

    /// `ID.FIELD OP VALUE`; the value is the rest of the line, so text with
    /// spaces can be matched.
    private static func field(_ text: String) throws(ReplayError) -> Predicate {
        let trimmed = text.drop { $0.isWhitespace }
        guard let dot = trimmed.firstIndex(of: "."), let id = try? entityID(String(trimmed[..<dot])) else {
            throw ReplayError("cannot read \"\(text)\"; \(grammar)")
        }
        let rest = trimmed[trimmed.index(after: dot)...]
        let name = rest.prefix { $0.isLetter }
        let afterName = rest.dropFirst(name.count).drop { $0.isWhitespace }
        // Longest operators first, so <= is not read as <.
        guard let comparison = Comparison.allCases.first(where: { afterName.hasPrefix($0.rawValue) }) else {
            throw ReplayError("\"\(text)\" needs a comparison after the field: one of = != < <= > >=")
        }
        let known = FieldID.allCases.map(\.description) + EntityFields.derivedNames + ["alive"]
        guard known.contains(String(name)) else {
            throw ReplayError("no field \"\(name)\"; fields are \(known.joined(separator: ", "))")
        }
        let value = afterName.dropFirst(comparison.rawValue.count).trimmingWhitespace
        guard !value.isEmpty else { throw ReplayError("\"\(text)\" needs a value after \(comparison.rawValue)") }
        return .field(id, name: String(name), comparison, value)
    }

    /// An entity ID as replay prints it (`e12@00000000000000c1`), or its
    /// op ID (`12@c1`).
    public static func entityID(_ text: String) throws(ReplayError) -> EntityID {
        let body = text.hasPrefix("e") ? text.dropFirst() : Substring(text)
        let parts = body.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let counter = UInt64(parts[0]), counter > 0, !parts[1].isEmpty,
            parts[1].count <= 16, let replica = UInt64(parts[1], radix: 16)
        else {
            throw ReplayError(
                "\"\(text)\" is not an entity ID: write it as --print shows it, e.g. e12@00000000000000c1")
        }
        return EntityID(OpID(counter: counter, replica: ReplicaID(rawValue: replica)))
    }
}

extension Substring {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
