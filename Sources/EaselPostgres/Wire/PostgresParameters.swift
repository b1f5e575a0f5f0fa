import CLibPQ

/// A statement's parameters in PostgreSQL's binary format, all in one
/// buffer that is kept and reused: an append's columns of ops are written
/// as arrays in place, with no allocation per op once the buffer has grown.
public struct PostgresParameters {
    /// The type of a parameter, by its OID in `pg_type`.
    public enum Kind: Oid, Sendable {
        case bool = 16
        case bytea = 17
        case int8 = 20
        case int4 = 23
        case text = 25
        case byteaArray = 1001
        case textArray = 1009
        case int8Array = 1016

        var element: Kind? {
            switch self {
            case .byteaArray: .bytea
            case .textArray: .text
            case .int8Array: .int8
            default: nil
            }
        }
    }

    private(set) var bytes: [UInt8] = []
    /// Where each parameter starts in `bytes`; nil for SQL NULL.
    private(set) var starts: [Int?] = []
    private(set) var lengths: [Int32] = []
    private(set) var kinds: [Oid] = []

    public init() {}

    public var count: Int { starts.count }

    /// Empties it, keeping what it has grown to.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        kinds.removeAll(keepingCapacity: true)
    }

    public mutating func append(_ value: Int64) {
        begin(.int8)
        put(value)
        end()
    }

    public mutating func append(_ value: Int32) {
        begin(.int4)
        put(value)
        end()
    }

    public mutating func append(_ value: Bool) {
        begin(.bool)
        bytes.append(value ? 1 : 0)
        end()
    }

    public mutating func append(_ value: String) {
        begin(.text)
        bytes.append(contentsOf: value.utf8)
        end()
    }

    public mutating func append(bytes value: some Collection<UInt8>) {
        begin(.bytea)
        bytes.append(contentsOf: value)
        end()
    }

    public mutating func appendNull(_ kind: Kind) {
        starts.append(nil)
        lengths.append(-1)
        kinds.append(kind.rawValue)
    }

    public mutating func append(int8Array values: some Collection<Int64>) {
        beginArray(.int8Array, count: values.count)
        for value in values {
            put(Int32(8))
            put(value)
        }
        end()
    }

    public mutating func append(textArray values: some Collection<String>) {
        beginArray(.textArray, count: values.count)
        for value in values { element { $0.append(contentsOf: value.utf8) } }
        end()
    }

    /// An array of `count` byte strings, each written by `write(index, &buffer)`
    /// straight into the parameters' buffer.
    public mutating func append(byteaArray count: Int, _ write: (Int, inout [UInt8]) -> Void) {
        beginArray(.byteaArray, count: count)
        for index in 0..<count { element { write(index, &$0) } }
        end()
    }

    /// Calls `body` with the arrays libpq's `PQexecParams` family takes:
    /// types, values, lengths and formats (binary, every one).
    mutating func withLibPQArrays<T>(
        _ body: (
            _ types: UnsafePointer<Oid>?, _ values: UnsafePointer<UnsafePointer<CChar>?>?,
            _ lengths: UnsafePointer<Int32>?, _ formats: UnsafePointer<Int32>?
        ) throws(PostgresError) -> T
    ) throws(PostgresError) -> T {
        // A byte past the last value: an empty value (an empty string) still
        // gets a pointer that is not NULL, which libpq would read as SQL NULL.
        bytes.append(0)
        defer { bytes.removeLast() }
        let formats = [Int32](repeating: 1, count: count)
        let (starts, kinds, lengths) = (starts, kinds, lengths)
        return try bytes.withUnsafeBufferPointer { buffer throws(PostgresError) -> T in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            let values: [UnsafePointer<CChar>?] = starts.map { start in
                start.flatMap { start in base.map { $0 + start } }
            }
            return try kinds.withUnsafeBufferPointer { kinds throws(PostgresError) -> T in
                try values.withUnsafeBufferPointer { values throws(PostgresError) -> T in
                    try lengths.withUnsafeBufferPointer { lengths throws(PostgresError) -> T in
                        try formats.withUnsafeBufferPointer { formats throws(PostgresError) -> T in
                            try body(kinds.baseAddress, values.baseAddress, lengths.baseAddress, formats.baseAddress)
                        }
                    }
                }
            }
        }
    }

    // MARK: Writing

    private mutating func begin(_ kind: Kind) {
        starts.append(bytes.count)
        kinds.append(kind.rawValue)
    }

    private mutating func end() {
        guard let start = starts[starts.count - 1] else { return }
        lengths.append(Int32(bytes.count - start))
    }

    /// The header of a one-dimensional array without NULLs (`array_send`):
    /// dimensions, a flags word, the element type, then the length and
    /// lower bound of the one dimension. An empty array has no dimension.
    private mutating func beginArray(_ kind: Kind, count: Int) {
        begin(kind)
        put(Int32(count == 0 ? 0 : 1))
        put(Int32(0))
        put(Int32(bitPattern: kind.element?.rawValue ?? 0))
        guard count > 0 else { return }
        put(Int32(count))
        put(Int32(1))
    }

    /// An array element: its length, then what `write` appended.
    private mutating func element(_ write: (inout [UInt8]) -> Void) {
        let lengthAt = bytes.count
        put(Int32(0))
        write(&bytes)
        let length = UInt32(bytes.count - lengthAt - 4)
        bytes[lengthAt] = UInt8(truncatingIfNeeded: length >> 24)
        bytes[lengthAt + 1] = UInt8(truncatingIfNeeded: length >> 16)
        bytes[lengthAt + 2] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[lengthAt + 3] = UInt8(truncatingIfNeeded: length)
    }

    private mutating func put(_ value: Int64) {
        let bits = UInt64(bitPattern: value)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
    }

    private mutating func put(_ value: Int32) {
        let bits = UInt32(bitPattern: value)
        for shift in stride(from: 24, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: bits >> UInt32(shift)))
        }
    }
}
