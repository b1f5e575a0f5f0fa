import EaselModel

/// Writes JSON with no whitespace, keys in the order given: the same
/// message always gives the same bytes (the golden vectors hold them).
/// The one JSON writer of the project: the codec, the server's JSON log
/// lines and the web module's interface tables all write with it.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a comma first.
    private var needsComma = false

    public init(capacity: Int = 128) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Starts a member; the value written next is its value.
    public mutating func key(_ key: String) {
        separate()
        quoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        quoted(value)
        needsComma = true
    }

    /// JSON has no NaN or infinity: those are written as null, which a
    /// decoder refuses (111) instead of failing to parse the whole text.
    /// `Message.validate()` catches them before sending.
    public mutating func float(_ value: Float) {
        raw(value.isFinite ? value.canonical.description : "null")
    }

    public mutating func integer(_ value: some BinaryInteger) {
        raw(String(value))
    }

    public mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// Shorthand for a member whose value is a string.
    public mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    /// Writes a value that is JSON already (a literal table, a number
    /// given as text).
    public mutating func embed(_ json: some StringProtocol) {
        raw(String(json))
    }

    /// The text as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private mutating func raw(_ text: String) {
        separate()
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func quoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
