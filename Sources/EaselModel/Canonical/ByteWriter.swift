/// Appends fixed-width little-endian numbers, LEB128 varints and
/// length-prefixed strings to a byte buffer.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func uint32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func uint64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func float(_ value: Float) {
        uint32(value.bitPattern)
    }

    mutating func string(_ value: String) {
        varint(UInt64(value.utf8.count))
        bytes += value.utf8
    }

    mutating func opID(_ id: OpID) {
        varint(id.counter)
        uint64(id.replica.rawValue)
    }
}
