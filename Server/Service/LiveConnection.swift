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
    private var outgoing: [OutFrame?] = []
    private var outgoingHead = 0
    /// Bytes queued and not yet written: bounded, so a client that stops
    /// reading cannot make the server hold its room's traffic forever.
    private(set) var queuedBytes = 0
    /// Set once the connection is to close, after what is queued.
    var closeCode: CloseCode?

    init(id: ConnectionID, wsi: OpaquePointer, encoding: WireEncoding) {
        self.id = id
        self.wsi = wsi
        self.encoding = encoding
    }

    var hasOutgoing: Bool { outgoingHead < outgoing.count }

    /// Queues a frame; true when the queue was empty (the caller asks lws
    /// for a writable callback only then).
    func enqueue(_ frame: OutFrame) -> Bool {
        let wasEmpty = !hasOutgoing
        outgoing.append(frame)
        queuedBytes += frame.count
        return wasEmpty
    }

    /// The frame `dequeue()` would return, left in the queue.
    var nextFrame: OutFrame? { hasOutgoing ? outgoing[outgoingHead] : nil }

    @discardableResult
    func dequeue() -> OutFrame? {
        guard hasOutgoing else { return nil }
        let frame = outgoing[outgoingHead]
        outgoing[outgoingHead] = nil
        outgoingHead += 1
        if outgoingHead == outgoing.count {
            outgoing.removeAll(keepingCapacity: true)
            outgoingHead = 0
        } else if outgoingHead > 1024, outgoingHead > outgoing.count / 2 {
            outgoing.removeFirst(outgoingHead)
            outgoingHead = 0
        }
        queuedBytes -= frame?.count ?? 0
        return frame
    }

    /// Forgets what is queued (a connection closed for reading too slowly).
    func dropOutgoing() {
        outgoing = []
        outgoingHead = 0
        queuedBytes = 0
    }
}
