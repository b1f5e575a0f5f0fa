/// A parsed JSON value. Numbers keep their text, so each field converts it
/// to its own type (binary32, uint) with no detour through Double.
enum JSONValue {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// An object's members in text order; keys are unique (the parser checks).
///
/// A class, not a struct: Embedded Swift cannot lay out an enum that holds
/// a struct holding the enum again (WebAssembly builds, Docs/web.md), and
/// an object is never changed once parsed.
final class JSONObject {
    let members: [(key: String, value: JSONValue)]

    init(members: [(key: String, value: JSONValue)]) {
        self.members = members
    }

    /// Byte-for-byte key comparison: `"z\u212Aey"` is not `"zKey"`.
    subscript(key: String) -> JSONValue? {
        members.first { $0.key.utf8.elementsEqual(key.utf8) }?.value
    }
}
