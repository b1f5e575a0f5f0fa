import EaselModel

/// Reads the protocol's binary primitives from a buffer, checking every
/// length and count against the bytes left before anything is reserved.
struct BinaryReader: ~Copyable {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0
    /// Elements reserved so far for counts the input declared: a test holds
    /// it to the input's length, so no input can make a decoder allocate
    /// more than its own size justifies.
    private(set) var reservedElements = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var remaining: Int { bytes.count - offset }

    func truncated(_ what: String) -> DecodeError {
        DecodeError(.truncated, "the message ends inside \(what) at byte \(offset)")
    }

    @inline(__always)
    mutating func byte(_ what: @autoclosure () -> String) throws(DecodeError) -> UInt8 {
        guard offset < bytes.count else { throw truncated(what()) }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// One byte holds most varints (small counters, indices, deltas):
    /// that case is inlined, the rest is not.
    @inline(__always)
    mutating func varint(_ what: @autoclosure () -> String) throws(DecodeError) -> UInt64 {
        if offset < bytes.count, bytes[offset] < 0x80 {
            offset += 1
            return UInt64(bytes[offset - 1])
        }
        // Two bytes: an index into a table of up to 16,384 entries.
        if offset + 1 < bytes.count, bytes[offset + 1] < 0x80, bytes[offset + 1] != 0 {
            offset += 2
            return UInt64(bytes[offset - 2] & 0x7F) | UInt64(bytes[offset - 1]) << 7
        }
        return try multiByteVarint(what())
    }

    @inline(never)
    private mutating func multiByteVarint(_ what: @autoclosure () -> String) throws(DecodeError) -> UInt64 {
        // Three bytes, in shortest form: a character's counter in a text
        // of up to two million keystrokes, without the loop.
        if offset + 2 < bytes.count, bytes[offset] >= 0x80, bytes[offset + 1] >= 0x80, bytes[offset + 2] < 0x80,
            bytes[offset + 2] != 0
        {
            offset += 3
            return UInt64(bytes[offset - 3] & 0x7F) | UInt64(bytes[offset - 2] & 0x7F) << 7
                | UInt64(bytes[offset - 1]) << 14
        }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        let start = offset
        while true {
            guard offset < bytes.count else { throw truncated(what()) }
            let byte = bytes[offset]
            offset += 1
            // The tenth byte holds bit 63 only: anything more overflows.
            if shift == 63 && byte > 1 {
                throw DecodeError(.malformedVarint, "\(what()) at byte \(start) exceeds 2^64 - 1")
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                // A final zero group after others means a longer form than needed.
                if byte == 0 && offset - start > 1 {
                    throw DecodeError(.malformedVarint, "\(what()) at byte \(start) is not in its shortest form")
                }
                return value
            }
            shift += 7
        }
    }

    mutating func signedVarint(_ what: @autoclosure () -> String) throws(DecodeError) -> Int64 {
        let raw = try varint(what())
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A varint that must fit `T`; a larger value is `invalidValue`.
    mutating func varint<T: FixedWidthInteger>(_ type: T.Type, _ what: @autoclosure () -> String) throws(DecodeError)
        -> T
    {
        let raw = try varint(what())
        guard let value = T(exactly: raw) else {
            throw DecodeError(.invalidValue, "\(what()) is \(raw); at most \(T.max)")
        }
        return value
    }

    /// A count of elements that each take at least `minimumBytes`: over
    /// `limit` is `limitCode`, more than the bytes left could hold is
    /// `lengthExceedsInput`. Only then may the caller reserve `count` slots.
    mutating func count(
        of what: String, limit: Int, limitCode: ErrorCode = .tooLarge, minimumBytes: Int
    ) throws(DecodeError) -> Int {
        let raw = try varint("the count of \(what)")
        guard raw <= UInt64(limit) else {
            throw DecodeError(limitCode, "\(raw) \(what); at most \(limit)")
        }
        let count = Int(raw)
        guard count <= remaining / max(minimumBytes, 1) else {
            throw DecodeError(
                .lengthExceedsInput, "\(count) \(what) cannot fit in the \(remaining) bytes left at byte \(offset)")
        }
        reservedElements += count
        return count
    }

    mutating func fixed64(_ what: @autoclosure () -> String) throws(DecodeError) -> UInt64 {
        guard remaining >= 8 else { throw truncated(what()) }
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    mutating func fixed32BigEndian(_ what: @autoclosure () -> String) throws(DecodeError) -> UInt32 {
        guard remaining >= 4 else { throw truncated(what()) }
        defer { offset += 4 }
        return UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// A finite binary32; -0 reads as 0, as the model holds it.
    @inline(__always)
    mutating func float(_ what: @autoclosure () -> String) throws(DecodeError) -> Float {
        guard remaining >= 4 else { throw truncated(what()) }
        let bits = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        offset += 4
        let value = Float(bitPattern: bits)
        guard value.isFinite else { throw DecodeError(.nonFiniteNumber, "\(what()) is not a finite number") }
        return value.canonical
    }

    /// A UTF-8 string of at most `limit` bytes (over it: `limitCode`).
    mutating func string(
        _ what: @autoclosure () -> String, limit: Int, limitCode: ErrorCode = .tooLarge
    ) throws(DecodeError) -> String {
        let slice = try lengthPrefixed(what(), limit: limit, limitCode: limitCode)
        let start = offset - slice.count
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw DecodeError(.invalidValue, "\(what()) at byte \(start) is not valid UTF-8")
        }
        return string
    }

    /// The bytes of a length-prefixed string, its length checked against
    /// `limit` and what is left.
    private mutating func lengthPrefixed(
        _ what: @autoclosure () -> String, limit: Int, limitCode: ErrorCode
    ) throws(DecodeError) -> UnsafeRawBufferPointer {
        let length = try varint("the length of \(what())")
        guard length <= UInt64(limit) else {
            throw DecodeError(limitCode, "\(what()) is \(length) bytes; at most \(limit)")
        }
        guard length <= UInt64(remaining) else {
            throw DecodeError(
                .lengthExceedsInput, "\(what()) claims \(length) bytes; \(remaining) are left at byte \(offset)")
        }
        defer { offset += Int(length) }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(length)])
    }

    /// A length-prefixed string checked as `scalars` checks it, but not
    /// decoded: its UTF-8 in the input, and how many scalars it holds.
    mutating func validUTF8(
        _ what: @autoclosure () -> String, limit: Int, limitCode: ErrorCode = .tooLarge
    ) throws(DecodeError) -> (utf8: UnsafeRawBufferPointer, count: Int) {
        let utf8 = try lengthPrefixed(what(), limit: limit, limitCode: limitCode)
        var ascii = 0
        // Eight bytes at a time while they are all ASCII.
        while ascii + 8 <= utf8.count,
            utf8.loadUnaligned(fromByteOffset: ascii, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
        {
            ascii += 8
        }
        while ascii < utf8.count, utf8[ascii] < 0x80 { ascii += 1 }
        guard ascii < utf8.count else { return (utf8, ascii) }
        var count = ascii
        var iterator = UnsafeRawBufferPointer(rebasing: utf8[ascii...]).makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: count += 1
            case .emptyInput: return (utf8, count)
            case .error:
                throw DecodeError(.invalidValue, "\(what()) at byte \(offset - utf8.count) is not valid UTF-8")
            }
        }
    }

    /// A string's Unicode scalars, decoded straight from its UTF-8 with
    /// `string`'s checks: no String in between, for typed characters.
    mutating func scalars(
        _ what: @autoclosure () -> String, limit: Int, limitCode: ErrorCode = .tooLarge
    ) throws(DecodeError) -> [Unicode.Scalar] {
        let slice = try lengthPrefixed(what(), limit: limit, limitCode: limitCode)
        let start = offset - slice.count
        // Most typing is ASCII: one byte, one scalar, nothing to check,
        // written straight into the array's room.
        var ascii = 0
        while ascii < slice.count, slice[ascii] < 0x80 { ascii += 1 }
        var scalars = [Unicode.Scalar](unsafeUninitializedCapacity: slice.count) { room, initialized in
            for index in 0..<ascii { room[index] = Unicode.Scalar(slice[index]) }
            initialized = ascii
        }
        guard ascii < slice.count else { return scalars }
        var iterator = UnsafeRawBufferPointer(rebasing: slice[ascii...]).makeIterator()
        var decoder = UTF8()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break decoding
            case .error: throw DecodeError(.invalidValue, "\(what()) at byte \(start) is not valid UTF-8")
            }
        }
        return scalars
    }

    mutating func bytes(count: Int, _ what: @autoclosure () -> String) throws(DecodeError) -> UnsafeRawBufferPointer {
        guard remaining >= count else { throw truncated(what()) }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func color(_ what: @autoclosure () -> String) throws(DecodeError) -> Color {
        Color(rawValue: try fixed32BigEndian(what()))
    }

    mutating func point(_ what: @autoclosure () -> String) throws(DecodeError) -> Point {
        Point(x: try float("\(what()) x"), y: try float("\(what()) y"))
    }

    /// A flags byte whose bits outside `known` must be clear.
    mutating func flags(_ what: String, known: UInt8) throws(DecodeError) -> UInt8 {
        let flags = try byte(what)
        guard flags & ~known == 0 else {
            throw DecodeError(.unknownTag, "\(what) has unknown bits \(flags & ~known) at byte \(offset - 1)")
        }
        return flags
    }

    func expectEnd() throws(DecodeError) {
        guard remaining == 0 else {
            throw DecodeError(.trailingBytes, "\(remaining) bytes after the message's last field, at byte \(offset)")
        }
    }
}
