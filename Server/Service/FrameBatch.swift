/// Server-to-client WebSocket frames written back to back into one buffer,
/// so a connection's queued messages leave in one send instead of one
/// system call each (measured with libwebsockets here: about 200 k
/// deliveries a second a core one by one, millions batched).
///
/// Frames follow RFC 6455 section 5.2 as a server sends them: FIN set, no
/// mask, the shortest length form. One buffer serves the service thread,
/// reused for every write, so batching allocates nothing.
final class FrameBatch {
    private let buffer: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    /// Bytes the batch holds: what one write hands lws at most.
    var capacity: Int { buffer.count }

    init(capacity: Int) {
        buffer = .allocate(byteCount: max(capacity, Self.longestHeader), alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    static let longestHeader = 10

    /// Bytes of the frame header for a payload of `length` bytes.
    static func headerCount(payload length: Int) -> Int {
        length < 126 ? 2 : length <= 0xFFFF ? 4 : 10
    }

    /// Bytes a frame of `length` payload bytes takes in the batch.
    static func frameCount(payload length: Int) -> Int {
        headerCount(payload: length) + length
    }

    /// Appends one whole message as a frame; false (and nothing appended)
    /// when it does not fit in what is left.
    func append(_ payload: UnsafeRawBufferPointer, text: Bool) -> Bool {
        append(payload, opcode: text ? 0x1 : 0x2)
    }

    /// Appends a close frame with its status code (RFC 6455 section 5.5.1).
    func appendClose(_ code: UInt16) -> Bool {
        withUnsafeBytes(of: code.bigEndian) { append($0, opcode: 0x8) }
    }

    private func append(_ payload: UnsafeRawBufferPointer, opcode: UInt8) -> Bool {
        guard count + Self.frameCount(payload: payload.count) <= buffer.count else { return false }
        appendHeader(payload: payload.count, opcode: opcode)
        appendBytes(payload)
        return true
    }

    /// Appends the header of a frame whose payload follows in later writes
    /// (a message bigger than one batch); false when it does not fit.
    func appendHeader(payload length: Int, text: Bool) -> Bool {
        guard count + Self.headerCount(payload: length) <= buffer.count else { return false }
        appendHeader(payload: length, opcode: text ? 0x1 : 0x2)
        return true
    }

    /// Appends as much of `bytes` as fits; how many bytes that was.
    @discardableResult
    func appendBytes(_ bytes: UnsafeRawBufferPointer) -> Int {
        let length = min(bytes.count, buffer.count - count)
        if length > 0, let source = bytes.baseAddress, let base = buffer.baseAddress {
            (base + count).copyMemory(from: source, byteCount: length)
        }
        count += length
        return length
    }

    private func appendHeader(payload length: Int, opcode: UInt8) {
        buffer[count] = 0x80 | opcode
        switch Self.headerCount(payload: length) {
        case 2:
            buffer[count + 1] = UInt8(length)
        case 4:
            buffer[count + 1] = 126
            buffer[count + 2] = UInt8(length >> 8)
            buffer[count + 3] = UInt8(length & 0xFF)
        default:
            buffer[count + 1] = 127
            for byte in 0..<8 {
                buffer[count + 2 + byte] = UInt8(truncatingIfNeeded: UInt64(length) >> (56 - 8 * UInt64(byte)))
            }
        }
        count += Self.headerCount(payload: length)
    }

    func removeAll() {
        count = 0
    }

    /// The frames appended so far.
    var frames: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
    }
}
