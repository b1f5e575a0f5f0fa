// Byte buffers across the JavaScript boundary: JavaScript allocates in the
// module's memory, writes a message there, and hands over the pointer and
// the length. Everything crosses as numbers; nothing is shared by reference.

/// A buffer JavaScript may write `count` bytes into; free it with
/// `easel_free`.
@_cdecl("easel_alloc")
public func easelAlloc(_ count: Int32) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer.allocate(byteCount: Int(max(count, 1)), alignment: 8)
}

@_cdecl("easel_free")
public func easelFree(_ pointer: UnsafeMutableRawPointer) {
    pointer.deallocate()
}

/// The bytes JavaScript wrote, copied into Swift.
func bytes(at pointer: UnsafeRawPointer, count: Int32) -> [UInt8] {
    Array(UnsafeRawBufferPointer(start: pointer, count: Int(max(count, 0))))
}

/// Where a call that answers with bytes leaves them: JavaScript reads
/// `easel_result_length` bytes at `easel_result_pointer` before its next
/// call into the module. One buffer, grown when needed, never shrunk.
nonisolated(unsafe) private var resultBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
nonisolated(unsafe) private var resultLength = 0

func setResult(_ bytes: [UInt8]) {
    if bytes.count > resultBuffer.count {
        resultBuffer.deallocate()
        resultBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
    }
    bytes.withUnsafeBytes { source in
        if let base = source.baseAddress, let target = resultBuffer.baseAddress {
            target.copyMemory(from: base, byteCount: source.count)
        }
    }
    resultLength = bytes.count
}

@_cdecl("easel_result_pointer")
public func easelResultPointer() -> UnsafeMutableRawPointer? {
    resultBuffer.baseAddress
}

@_cdecl("easel_result_length")
public func easelResultLength() -> Int32 {
    Int32(resultLength)
}

/// Records of a result: a kind byte, a little-endian 32-bit length, then
/// that many bytes.
struct RecordWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var count: Int32 = 0

    mutating func record(_ kind: UInt8, _ payload: [UInt8]) {
        bytes.append(kind)
        bytes.appendLittleEndian(UInt32(payload.count))
        bytes += payload
        count += 1
    }

    /// A record of the texts one after another, copied once.
    mutating func record(_ kind: UInt8, _ texts: String...) {
        bytes.append(kind)
        bytes.appendLittleEndian(UInt32(texts.reduce(0) { $0 + $1.utf8.count }))
        for text in texts { bytes.append(contentsOf: text.utf8) }
        count += 1
    }
}

extension [UInt8] {
    /// The integer's bytes, least significant first.
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        for shift in stride(from: 0, to: T.bitWidth, by: 8) { append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// The string as a u32 length (little-endian) and its UTF-8.
    mutating func appendLengthPrefixed(_ string: String) {
        appendLittleEndian(UInt32(string.utf8.count))
        append(contentsOf: string.utf8)
    }
}
