/// One encoded message, shared by every recipient of a broadcast: each
/// write copies it into its batch (a message bigger than a batch goes a
/// batch at a time), so nobody writes into it. Immutable, so the encoder
/// thread may make them for the service thread.
final class OutFrame: Sendable {
    private let message: [UInt8]

    init(_ message: [UInt8]) {
        self.message = message
    }

    var count: Int { message.count }

    /// The message's bytes from `offset` on, for framing into a batch.
    func withBytes<Result>(from offset: Int = 0, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        message.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
    }
}
