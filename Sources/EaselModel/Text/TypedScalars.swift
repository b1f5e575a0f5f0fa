/// The scalars an insert brings, as a sequence merges them: a list of
/// them (typed here, or from a `TextInsert`), or the UTF-8 a received op
/// carries, stored as it is.
protocol TypedScalars {
    var count: Int { get }
    /// The scalars from the `offset`th on.
    func after(_ offset: Int) -> Self
    func append(to store: inout ScalarStore)
}

extension UnsafeBufferPointer: TypedScalars where Element == Unicode.Scalar {
    func after(_ offset: Int) -> UnsafeBufferPointer<Unicode.Scalar> {
        UnsafeBufferPointer(rebasing: self[offset...])
    }

    func append(to store: inout ScalarStore) {
        store.append(contentsOf: self)
    }
}

/// Valid UTF-8 and the count of its scalars.
struct UTF8Scalars: TypedScalars, Sequence {
    var utf8: UnsafeRawBufferPointer
    var count: Int

    private var isASCII: Bool { count == utf8.count }

    func after(_ offset: Int) -> UTF8Scalars {
        if isASCII { return UTF8Scalars(utf8: UnsafeRawBufferPointer(rebasing: utf8[offset...]), count: count - offset) }
        var byte = 0
        for _ in 0..<offset { byte += Self.width(leading: utf8[byte]) }
        return UTF8Scalars(utf8: UnsafeRawBufferPointer(rebasing: utf8[byte...]), count: count - offset)
    }

    func append(to store: inout ScalarStore) {
        store.append(utf8: utf8, count: count)
    }

    func makeIterator() -> Iterator {
        Iterator(utf8: utf8)
    }

    struct Iterator: IteratorProtocol {
        var utf8: UnsafeRawBufferPointer
        var offset = 0

        mutating func next() -> Unicode.Scalar? {
            guard offset < utf8.count else { return nil }
            let leading = utf8[offset]
            let width = UTF8Scalars.width(leading: leading)
            defer { offset += width }
            guard width > 1 else { return Unicode.Scalar(leading) }
            var value = UInt32(leading) & (0xFF >> (width + 1))
            for at in offset + 1..<offset + width { value = value << 6 | UInt32(utf8[at] & 0x3F) }
            return Unicode.Scalar(value) ?? "\u{FFFD}"
        }
    }

    static func width(leading: UInt8) -> Int {
        leading < 0x80 ? 1 : leading < 0xE0 ? 2 : leading < 0xF0 ? 3 : 4
    }
}
