/// A WebSocket message put together from the pieces a socket delivers
/// (fragments, and reads cut at the receive buffer's size), bounded: a
/// message over `limit` bytes is refused as soon as it grows past it, so a
/// peer cannot make anyone hold more. The server's connections and the
/// client's transport both use it.
public struct MessageAssembler: Sendable {
    public enum Outcome: Equatable, Sendable {
        /// More pieces are to come.
        case incomplete
        case message([UInt8])
        /// The message grew past the limit; what had come is dropped, and
        /// the next piece starts a new message.
        case tooLarge
    }

    public let limit: Int
    private var pieces: [UInt8] = []

    public init(limit: Int) {
        self.limit = limit
    }

    /// Adds a piece; `isLast` when it ends the message.
    public mutating func add(_ piece: UnsafeRawBufferPointer, isLast: Bool) -> Outcome {
        guard pieces.count + piece.count <= limit else {
            pieces = []
            return .tooLarge
        }
        if pieces.isEmpty, isLast {
            // The common case: a whole message in one read, copied once.
            return .message(Array(piece))
        }
        pieces.append(contentsOf: piece)
        guard isLast else { return .incomplete }
        // Taken, not copied; fragmented messages are rare, so the next one
        // may allocate again (and a big one's buffer is not kept).
        defer { pieces = [] }
        return .message(pieces)
    }

    public mutating func add(_ piece: [UInt8], isLast: Bool) -> Outcome {
        piece.withUnsafeBytes { add($0, isLast: isLast) }
    }

    /// Bytes of the message in progress.
    public var pendingCount: Int { pieces.count }
}
