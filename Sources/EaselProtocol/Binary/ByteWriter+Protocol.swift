import EaselModel

/// The protocol's binary primitives beyond the model's (Protocol/README.md, 4.1).
extension ByteWriter {
    /// Zigzag: small magnitudes of either sign stay short.
    mutating func signedVarint(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Red, green, blue, alpha: the order people read `#rrggbbaa` in.
    mutating func color(_ value: Color) {
        withUnsafeBytes(of: value.rawValue.bigEndian) { append(contentsOf: $0) }
    }

    mutating func point(_ value: Point) {
        float(value.x)
        float(value.y)
    }
}
