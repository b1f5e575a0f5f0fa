import EaselModel

/// Typed access to a JSON object's members: a missing key or a value of the
/// wrong JSON type is `wrongType`, a value of the right type but outside
/// its domain is `invalidValue`. `path` names the object in errors.
struct JSONFields {
    let object: JSONObject
    let path: String

    init(_ value: JSONValue, path: String) throws(DecodeError) {
        guard case .object(let object) = value else {
            throw DecodeError(.wrongType, "\(path) must be an object, not \(value.typeName)")
        }
        self.object = object
        self.path = path
    }

    func has(_ key: String) -> Bool { object[key] != nil }

    /// The object's keys, in text order.
    var keys: [String] { object.members.map({ $0.key }) }

    func value(_ key: String) throws(DecodeError) -> JSONValue {
        guard let value = object[key] else { throw DecodeError(.wrongType, "\(path) has no \"\(key)\"") }
        return value
    }

    func wrongType(_ key: String, _ expected: String, _ value: JSONValue) -> DecodeError {
        DecodeError(.wrongType, "\(path).\(key) must be \(expected), not \(value.typeName)")
    }

    func string(_ key: String) throws(DecodeError) -> String {
        let value = try value(key)
        guard case .string(let string) = value else { throw wrongType(key, "a string", value) }
        return string
    }

    func optionalString(_ key: String) throws(DecodeError) -> String? {
        has(key) ? try string(key) : nil
    }

    func bool(_ key: String) throws(DecodeError) -> Bool {
        let value = try value(key)
        guard case .bool(let bool) = value else { throw wrongType(key, "true or false", value) }
        return bool
    }

    func array(_ key: String) throws(DecodeError) -> [JSONValue] {
        let value = try value(key)
        guard case .array(let array) = value else { throw wrongType(key, "an array", value) }
        return array
    }

    func fields(_ key: String) throws(DecodeError) -> JSONFields {
        try JSONFields(value(key), path: "\(path).\(key)")
    }

    func optionalFields(_ key: String) throws(DecodeError) -> JSONFields? {
        has(key) ? try fields(key) : nil
    }

    func float(_ key: String) throws(DecodeError) -> Float {
        try JSONConvert.float(value(key), "\(path).\(key)")
    }

    /// A JSON integer that fits `T` (protocol versions, counts, codes).
    /// JSON Schema counts `1.0` and `1e2` as integers, so they are read too.
    func integer<T: FixedWidthInteger>(_ key: String, as type: T.Type) throws(DecodeError) -> T {
        let value = try value(key)
        guard case .number(let text) = value else { throw wrongType(key, "a non-negative integer", value) }
        if let integer = T(text) { return integer }
        guard let double = Double(text), double.rounded() == double, let integer = T(exactly: double)
        else {
            throw DecodeError(.invalidValue, "\(path).\(key) is \(text); a whole number up to \(T.max)")
        }
        return integer
    }

    /// A 64-bit number as a decimal string (positions, batches, nonces).
    func uint64(_ key: String) throws(DecodeError) -> UInt64 {
        try JSONConvert.uint64(string(key), "\(path).\(key)")
    }

    /// Sixteen lower-case hex digits (replicas, state hashes).
    func hex64(_ key: String) throws(DecodeError) -> UInt64 {
        try JSONConvert.hex64(string(key), "\(path).\(key)")
    }

    func replica(_ key: String) throws(DecodeError) -> ReplicaID {
        ReplicaID(rawValue: try JSONConvert.hex64(string(key), "\(path).\(key)"))
    }

    func opID(_ key: String) throws(DecodeError) -> OpID {
        try JSONConvert.opID(string(key), "\(path).\(key)")
    }

    func color(_ key: String) throws(DecodeError) -> Color {
        try JSONConvert.color(string(key), "\(path).\(key)")
    }
}

/// Conversions of JSON values to the protocol's types.
enum JSONConvert {
    static func float(_ value: JSONValue, _ path: String) throws(DecodeError) -> Float {
        guard case .number(let text) = value else {
            throw DecodeError(.wrongType, "\(path) must be a number, not \(value.typeName)")
        }
        // Float(String) rounds the decimal straight to binary32.
        guard let float = Float(text) else { throw DecodeError(.invalidValue, "\(path): \(text) is not a number") }
        guard float.isFinite else { throw DecodeError(.nonFiniteNumber, "\(path): \(text) is beyond binary32") }
        return float.canonical
    }

    static func uint64(_ text: String, _ path: String) throws(DecodeError) -> UInt64 {
        let digits = text.utf8
        guard !digits.isEmpty, digits.count <= 20, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            digits.count == 1 || digits.first != UInt8(ascii: "0"), let value = UInt64(text)
        else {
            throw DecodeError(
                .invalidValue, "\(path) must be a decimal 64-bit number with no leading zeros, not \"\(text)\"")
        }
        return value
    }

    static func hex64(_ text: String, _ path: String) throws(DecodeError) -> UInt64 {
        guard text.utf8.count == 16, text.utf8.allSatisfy(isLowerHex), let value = UInt64(text, radix: 16) else {
            throw DecodeError(.invalidValue, "\(path) must be 16 lower-case hex digits, not \"\(text)\"")
        }
        return value
    }

    static func opID(_ text: String, _ path: String) throws(DecodeError) -> OpID {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw DecodeError(.invalidValue, "\(path) must be \"counter@replica\", not \"\(text)\"")
        }
        let counter = try uint64(String(parts[0]), "\(path) counter")
        guard counter > 0 else { throw DecodeError(.invalidValue, "\(path) has counter 0") }
        return OpID(counter: counter, replica: ReplicaID(rawValue: try hex64(String(parts[1]), "\(path) replica")))
    }

    static func color(_ text: String, _ path: String) throws(DecodeError) -> Color {
        let hex = text.utf8.dropFirst()
        guard text.utf8.first == UInt8(ascii: "#"), hex.count == 8, hex.allSatisfy(isLowerHex),
            let value = UInt32(String(text.dropFirst()), radix: 16)
        else {
            throw DecodeError(.invalidValue, "\(path) must be \"#rrggbbaa\" in lower-case hex, not \"\(text)\"")
        }
        return Color(rawValue: value)
    }

    static func isLowerHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }

    static func hex(_ value: UInt64) -> String {
        ReplicaID(rawValue: value).description
    }
}
