import CLibWebSockets

/// One encoded message, behind the `LWS_PRE` bytes lws writes its frame
/// header into. Shared by every recipient of a broadcast: lws writes whole
/// messages at once and only ever touches the header room, so one buffer
/// serves them all. Immutable once
/// made, so the encoder thread may make them for the service thread.
final class OutFrame: @unchecked Sendable {
    private let buffer: UnsafeMutableRawBufferPointer
    let count: Int

    init(_ message: [UInt8]) {
        count = message.count
        buffer = .allocate(byteCount: easel_lws_pre + message.count, alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        message.withUnsafeBytes { bytes in
            guard let source = bytes.baseAddress, let base = buffer.baseAddress else { return }
            (base + easel_lws_pre).copyMemory(from: source, byteCount: bytes.count)
        }
    }

    deinit {
        buffer.deallocate()
    }

    /// The message, for framing into a batch.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: payload, count: count)
    }

    /// Where the message starts, with the header room before it.
    var payload: UnsafeMutablePointer<UInt8> {
        // The buffer is never empty: it holds at least the header room.
        (buffer.baseAddress ?? UnsafeMutableRawPointer(bitPattern: 16).unsafelyUnwrapped)
            .advanced(by: easel_lws_pre).assumingMemoryBound(to: UInt8.self)
    }
}
