import EaselModel

/// Reads binary `ops` messages laid out for merging
/// (`Document.apply(_: ReceivedOps)`), message after message into the same
/// storage, so a receiver allocates nothing per message once it has seen
/// its largest.
public struct OpsMessageReader: Sendable {
    /// The last message's ops; empty after a message that was refused or
    /// was not `ops`.
    public private(set) var ops = ReceivedOps(entities: [], capacity: 0)
    /// The last op's position; nil when the last message had none.
    public private(set) var lastPosition: UInt64?

    public init() {}

    /// Reads `bytes`: true for an `ops` message, whose ops are now `ops`;
    /// false for any other message, which is read no further than its
    /// type. Refuses what `Message(binary:)` refuses, with the same error.
    public mutating func read(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Bool {
        // Moved out while the decoder fills it, so its storage is not
        // shared and is written in place.
        var sink = ReceivedOpsSink(received: ReceivedOps(entities: [], capacity: 0))
        swap(&sink.received, &ops)
        defer {
            swap(&sink.received, &ops)
            lastPosition = sink.lastPosition
        }
        do throws(DecodeError) {
            var reader = BinaryReader(bytes)
            guard try Message.header(&reader) == .ops else {
                sink.received.removeAll(startingWith: [], capacity: 0)
                return false
            }
            try reader.receivedOps(limit: ProtocolLimits.opsPerMessage, into: &sink)
            try reader.expectEnd()
            return true
        } catch {
            sink.received.removeAll(startingWith: [], capacity: 0)
            sink.lastPosition = nil
            throw error
        }
    }

    public mutating func read(_ bytes: [UInt8]) throws(DecodeError) -> Bool {
        try bytes.withUnsafeBytes { buffer in Result { () throws(DecodeError) in try read(buffer) } }.get()
    }
}
