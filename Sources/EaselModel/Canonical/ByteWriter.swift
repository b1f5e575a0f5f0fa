/// Appends fixed-width little-endian numbers, LEB128 varints and
/// length-prefixed strings to a byte buffer: the primitives of the canonical
/// encoding, and of the wire protocol's binary encoding (EaselProtocol
/// extends it with its own types).
public struct ByteWriter {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its room, for a writer reused piece by piece.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    public mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    // Byte by byte: appending the value's raw bytes as a buffer took the
    // generic path of `append(contentsOf:)`, a third of a state hash in
    // the module.
    public mutating func uint32(_ value: UInt32) {
        for shift in stride(from: 0 as UInt32, to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    public mutating func uint64(_ value: UInt64) {
        for shift in stride(from: 0 as UInt64, to: 64, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    public mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    public mutating func varint(_ value: some BinaryInteger) {
        varint(UInt64(value))
    }

    // The widths the encoders write, each a plain call: called from another
    // module, the generic one above runs unspecialised, through witness
    // tables, at about 400 instructions a call (callgrind, `easel serve`).
    public mutating func varint(_ value: Int) {
        varint(UInt64(value))
    }

    public mutating func varint(_ value: Int32) {
        varint(UInt64(value))
    }

    public mutating func varint(_ value: UInt32) {
        varint(UInt64(value))
    }

    /// Binary32 as the model holds it: -0 is written as 0.
    public mutating func float(_ value: Float) {
        uint32(value.canonical.bitPattern)
    }

    public mutating func string(_ value: String) {
        varint(UInt64(value.utf8.count))
        // A native string's bytes are one contiguous copy; iterating the
        // view byte by byte was most of a state hash's time in strings.
        let copied: Void? = value.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes += value.utf8 }
    }

    public mutating func append(contentsOf other: some Sequence<UInt8>) {
        bytes.append(contentsOf: other)
    }

    mutating func opID(_ id: OpID) {
        varint(id.counter)
        uint64(id.replica.rawValue)
    }
}
