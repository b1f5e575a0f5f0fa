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
