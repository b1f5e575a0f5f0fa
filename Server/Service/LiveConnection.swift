import EaselProtocol
import EaselSync

/// A WebSocket connection as the service thread keeps it: the message
/// being received, and the frames waiting for the socket to take them.
final class LiveConnection {
    let id: ConnectionID
    let wsi: OpaquePointer
    let encoding: WireEncoding
    /// The message arriving, across fragments and receive-buffer reads.
    var incoming: [UInt8] = []
    /// Encoded messages, each behind the padding lws writes its header into.
    private var outgoing: [[UInt8]] = []
    private var outgoingHead = 0
    /// Set once the connection is to close, after what is queued.
    var closeCode: CloseCode?

    init(id: ConnectionID, wsi: OpaquePointer, encoding: WireEncoding) {
        self.id = id
        self.wsi = wsi
        self.encoding = encoding
    }

    var hasOutgoing: Bool { outgoingHead < outgoing.count }

    func enqueue(_ frame: [UInt8]) {
        outgoing.append(frame)
    }

    func dequeue() -> [UInt8]? {
        guard hasOutgoing else { return nil }
        let frame = outgoing[outgoingHead]
        outgoingHead += 1
        if outgoingHead == outgoing.count {
            outgoing.removeAll(keepingCapacity: true)
            outgoingHead = 0
        }
        return frame
    }
}
