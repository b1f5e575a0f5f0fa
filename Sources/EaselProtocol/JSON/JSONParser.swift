/// A strict JSON parser (RFC 8259) for protocol messages: no duplicate keys,
/// nesting bounded, strings checked as UTF-8, numbers kept as text. It only
/// allocates what the text it has read holds.
struct JSONParser: ~Copyable {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    private var depth = 0

    static func parse(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.offset == bytes.count else { throw parser.error("text after the JSON value") }
        return value
    }

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private func error(_ what: String) -> DecodeError {
        DecodeError(.invalidJSON, "\(what) at byte \(offset)")
    }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            offset += 1
        }
    }

    private mutating func expect(_ literal: StaticString) throws(DecodeError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - offset >= count else { throw error("an unfinished literal") }
        for index in 0..<count where bytes[offset + index] != literal.utf8Start[index] {
            throw error("an unknown literal")
        }
        offset += count
    }

    private mutating func value() throws(DecodeError) -> JSONValue {
        guard let byte = current else { throw error("the text ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"): return .object(try object())
        case UInt8(ascii: "["): return .array(try array())
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number())
        default: throw error("an unexpected character")
        }
    }

    private mutating func enter() throws(DecodeError) {
        depth += 1
        guard depth <= ProtocolLimits.jsonDepth else {
            throw error("nesting deeper than \(ProtocolLimits.jsonDepth) levels")
        }
    }

    private mutating func object() throws(DecodeError) -> JSONObject {
        try enter()
        defer { depth -= 1 }
        offset += 1
        var members: [(key: String, value: JSONValue)] = []
        // Keys compare byte for byte (RFC 8259), not by Unicode canonical
        // equivalence as Swift's String does; a set keeps many keys linear.
        var keys: Set<[UInt8]> = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            offset += 1
            return JSONObject(members: members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("an object key must be a string") }
            let key = try string()
            guard keys.insert(Array(key.utf8)).inserted else {
                throw error("duplicate key \"\(key.prefix(64))\"")
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("a missing ':'") }
            offset += 1
            skipWhitespace()
            members.append((key, try value()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return JSONObject(members: members)
            default: throw error("a missing ',' or '}'")
            }
        }
    }

    private mutating func array() throws(DecodeError) -> [JSONValue] {
        try enter()
        defer { depth -= 1 }
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            offset += 1
            return elements
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"):
                offset += 1
                return elements
            default: throw error("a missing ',' or ']'")
            }
        }
    }

    private mutating func number() throws(DecodeError) -> String {
        let start = offset
        if current == UInt8(ascii: "-") { offset += 1 }
        switch current ?? 0 {
        case UInt8(ascii: "0"): offset += 1
        case UInt8(ascii: "1")...UInt8(ascii: "9"): skipDigits()
        default: throw error("a number without digits")
        }
        if current == UInt8(ascii: ".") {
            offset += 1
            guard try skipRequiredDigits() else { throw error("a fraction without digits") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard try skipRequiredDigits() else { throw error("an exponent without digits") }
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
    }

    private mutating func skipDigits() {
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { offset += 1 }
    }

    private mutating func skipRequiredDigits() throws(DecodeError) -> Bool {
        let start = offset
        skipDigits()
        return offset > start
    }

    private mutating func string() throws(DecodeError) -> String {
        offset += 1
        var scalars: [UInt8] = []
        var runStart = offset
        while true {
            guard let byte = current else { throw error("an unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                try appendValidated(runStart..<offset, to: &scalars)
                offset += 1
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try appendValidated(runStart..<offset, to: &scalars)
                offset += 1
                try escape(into: &scalars)
                runStart = offset
            case 0..<0x20:
                throw error("an unescaped control character in a string")
            default:
                offset += 1
            }
        }
    }

    /// Appends raw string bytes after checking they are UTF-8.
    private func appendValidated(_ range: Range<Int>, to output: inout [UInt8]) throws(DecodeError) {
        guard !range.isEmpty else { return }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[range])
        guard String(validating: slice, as: UTF8.self) != nil else { throw error("a string that is not UTF-8") }
        output.append(contentsOf: slice)
    }

    private mutating func escape(into output: inout [UInt8]) throws(DecodeError) {
        guard let byte = current else { throw error("an unterminated escape") }
        offset += 1
        let simple: UInt8? =
            switch byte {
            case UInt8(ascii: "\""): 0x22
            case UInt8(ascii: "\\"): 0x5C
            case UInt8(ascii: "/"): 0x2F
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
        if let simple {
            output.append(simple)
            return
        }
        guard byte == UInt8(ascii: "u") else { throw error("an unknown escape") }
        var scalar = UInt32(try hex4())
        if (0xD800..<0xDC00).contains(scalar) {
            // A high surrogate must be followed by an escaped low one.
            guard bytes.count - offset >= 2, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            else { throw error("a lone surrogate") }
            offset += 2
            let low = UInt32(try hex4())
            guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("a lone surrogate") }
        if let encoded = UTF8.encode(unicode) { output.append(contentsOf: encoded) }
    }

    private mutating func hex4() throws(DecodeError) -> UInt16 {
        guard bytes.count - offset >= 4 else { throw error("a short \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("a bad hex digit in a \\u escape")
            }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }
}
