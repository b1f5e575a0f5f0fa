import CLibWebSockets
import EaselModel
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
    var outgoing = OutgoingQueue()
    /// Set once the connection is to close, after what is queued.
    private(set) var closeCode: CloseCode?
    /// The code of the peer's close frame, when the peer closed first.
    var peerCloseCode: CloseCode?
    /// Where its hello joined, as whom (for the log).
    var document: DocumentName?
    var role: ConnectionIdentity.Role?
    /// The close frame is out; the connection waits for the peer's.
    private(set) var closeSent = false
    /// Waiting to be written at the end of the loop's turn (`Fanout`).
    var flushQueued = false
    /// A write failed outside its writable callback, where lws cannot
    /// close it: its next writable callback does.
    var writeFailed = false
    /// lws has closed it: its `wsi` is no more.
    var isGone = false

    init(id: ConnectionID, wsi: OpaquePointer, encoding: WireEncoding, messageBytes: Int) {
        self.id = id
        self.wsi = wsi
        self.encoding = encoding
        incoming = MessageAssembler(limit: messageBytes)
    }

    /// Asks lws for a writable callback.
    func wantsToWrite() {
        lws_callback_on_writable(wsi)
    }

    /// Closes with `code` once what is queued is out.
    func close(_ code: CloseCode) {
        guard closeCode == nil else { return }
        closeCode = code
        // A peer that stopped reading never lets the close out: cut it off.
        easel_lws_close_within(wsi, 5)
        wantsToWrite()
    }

    /// Closes with 4002, dropping what is queued.
    func closeForReadingTooSlowly() {
        outgoing.removeAll()
        close(.tooSlow)
    }
}

extension LiveConnection {
    /// Writes queued messages while the socket takes them, framed into
    /// batches so each write carries many, then the close; the writable
    /// callback returns what this returns (-1: close the connection).
    ///
    /// No write is bigger than the batch: lws keeps what the socket did not
    /// take of a write, so a bigger one would leave a reader that stalls
    /// holding that much of the server's memory. Writing stops while lws
    /// holds such a rest (it asks for the writable callback itself then);
    /// asking the socket first (`lws_send_pipe_choked`, a `poll` each
    /// write) bounded nothing more and cost a system call a write.
    func flush(through batch: FrameBatch) -> Int32 {
        let text = encoding == .json
        while let next = outgoing.next() {
            guard lws_partial_buffered(wsi) == 0 else {
                wantsToWrite()
                return 0
            }
            batch.removeAll()
            if outgoing.writtenOfHead > 0 || FrameBatch.frameCount(payload: next.count) > batch.capacity {
                // Bigger than a batch: its header, then its payload a batch at a time.
                if outgoing.writtenOfHead == 0, !batch.appendHeader(payload: next.count, text: text) { return -1 }
                outgoing.writtenOfHead += next.withBytes(from: outgoing.writtenOfHead) { batch.appendBytes($0) }
                if outgoing.writtenOfHead == next.count { outgoing.removeNext() }
            } else {
                while outgoing.writtenOfHead == 0, let frame = outgoing.next(),
                    frame.withBytes({ batch.append($0, text: text) })
                {
                    outgoing.removeNext()
                }
            }
            let frames = batch.frames
            guard let base = frames.baseAddress else { break }
            if easel_lws_write_raw(wsi, base.assumingMemoryBound(to: UInt8.self), frames.count) < 0 { return -1 }
        }
        // Waiting for a welcome still being encoded: its completion asks
        // for the next writable callback.
        if !outgoing.isEmpty { return 0 }
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
