import CLibWebSockets
import EaselProtocol
import EaselSync

/// A WebSocket connection as the service thread keeps it: the message
/// being received, and the frames waiting for the socket to take them.
final class LiveConnection {
    let id: ConnectionID
    let wsi: OpaquePointer
    let encoding: WireEncoding
    /// The message arriving, across fragments and receive-buffer reads.
    var incoming: MessageAssembler
    private var outgoing: [Outgoing?] = []
    private var outgoingHead = 0
    /// The frames of a finished encoding job, sent before the rest.
    private var front: ArraySlice<OutFrame> = []
    /// Bytes queued and not yet written, welcomes aside: bounded, so a
    /// client that stops reading cannot make the server hold its room's
    /// traffic forever. A welcome is as big as its document, which a slow
    /// client on a slow link must still be able to receive.
    private(set) var queuedBytes = 0
    /// Set once the connection is to close, after what is queued.
    var closeCode: CloseCode?
    /// The code of the peer's close frame, when the peer closed first.
    var peerCloseCode: CloseCode?
    /// Where its hello joined, as whom (for the log).
    var document: DocumentName?
    var role: ConnectionIdentity.Role?
    /// The close frame is out; the connection waits for the peer's.
    private(set) var closeSent = false

    private enum Outgoing {
        case frame(OutFrame, counted: Bool)
        /// A welcome still being encoded.
        case encoding(EncodingJob)
    }

    init(id: ConnectionID, wsi: OpaquePointer, encoding: WireEncoding, messageBytes: Int) {
        self.id = id
        self.wsi = wsi
        self.encoding = encoding
        incoming = MessageAssembler(limit: messageBytes)
    }

    var hasOutgoing: Bool { !front.isEmpty || outgoingHead < outgoing.count }

    /// Queues a frame; true when the queue was empty (the caller asks lws
    /// for a writable callback only then). A welcome's frames do not count
    /// toward `queuedBytes`.
    func enqueue(_ frame: OutFrame, isWelcome: Bool = false) -> Bool {
        let wasEmpty = !hasOutgoing
        outgoing.append(.frame(frame, counted: !isWelcome))
        if !isWelcome { queuedBytes += frame.count }
        return wasEmpty
    }

    /// Holds a place for a message still being encoded.
    func enqueue(_ job: EncodingJob) {
        outgoing.append(.encoding(job))
    }

    /// The frame `dequeue()` would return, left in the queue; nil when the
    /// queue is empty or waits for an encoding job.
    func nextFrame() -> OutFrame? {
        if let frame = front.first { return frame }
        guard outgoingHead < outgoing.count, let item = outgoing[outgoingHead] else { return nil }
        switch item {
        case .frame(let frame, _):
            return frame
        case .encoding(let job):
            guard let frames = job.frames else { return nil }
            advance()
            front = ArraySlice(frames[encoding] ?? [])
            return nextFrame()
        }
    }

    @discardableResult
    func dequeue() -> OutFrame? {
        guard let frame = nextFrame() else { return nil }
        if !front.isEmpty {
            front.removeFirst()
        } else {
            if case .frame(_, counted: true)? = outgoing[outgoingHead] { queuedBytes -= frame.count }
            advance()
        }
        return frame
    }

    private func advance() {
        outgoing[outgoingHead] = nil
        outgoingHead += 1
        if outgoingHead == outgoing.count {
            outgoing.removeAll(keepingCapacity: true)
            outgoingHead = 0
        } else if outgoingHead > 1024, outgoingHead > outgoing.count / 2 {
            outgoing.removeFirst(outgoingHead)
            outgoingHead = 0
        }
    }

    /// Forgets what is queued (a connection closed for reading too slowly).
    func dropOutgoing() {
        outgoing = []
        front = []
        outgoingHead = 0
        queuedBytes = 0
    }
}

extension LiveConnection {
    /// Writes queued messages while the socket takes them, framed into
    /// batches so each write carries many, then the close; the writable
    /// callback returns what this returns (-1: close the connection).
    func flush(through batch: FrameBatch) -> Int32 {
        let text = encoding == .json
        while let next = nextFrame() {
            guard lws_send_pipe_choked(wsi) == 0 else {
                lws_callback_on_writable(wsi)
                return 0
            }
            if FrameBatch.frameCount(payload: next.count) > batch.capacity {
                // Too big to batch: lws frames it in the room before it.
                dequeue()
                if easel_lws_write_message(wsi, next.payload, next.count, text ? 1 : 0) < 0 { return -1 }
                continue
            }
            batch.removeAll()
            while let frame = nextFrame(), batch.append(frame.bytes, text: text) {
                dequeue()
            }
            let frames = batch.frames
            guard let base = frames.baseAddress else { break }
            if easel_lws_write_raw(wsi, base.assumingMemoryBound(to: UInt8.self), frames.count) < 0 { return -1 }
        }
        // Waiting for a welcome still being encoded: its completion asks
        // for the next writable callback.
        if hasOutgoing { return 0 }
        if let closeCode, !closeSent {
            // The close frame goes out as a frame of our own and the socket
            // stays open until the peer answers (lws then closes it) or the
            // cut-off passes. Had lws closed at once, as it does after a close
            // reason, a client still sending (a flood) would get a reset, and
            // a reset makes its kernel drop the errors and the close unread.
            batch.removeAll()
            guard batch.appendClose(closeCode.rawValue), let base = batch.frames.baseAddress else { return -1 }
            if easel_lws_write_raw(wsi, base.assumingMemoryBound(to: UInt8.self), batch.count) < 0 { return -1 }
            closeSent = true
        }
        return 0
    }
}
