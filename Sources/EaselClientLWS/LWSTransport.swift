import CLibWebSockets
import EaselClient
import EaselProtocol
import EaselSync
import Foundation

/// One client WebSocket connection on a `ClientLoop`.
/// Unchecked: the socket is touched on the loop's thread only; the rest is behind `lock`.
final class LWSTransport: WebSocketTransport, @unchecked Sendable {
    let loop: ClientLoop
    let address: WebSocketAddress
    let subprotocol: String
    private let isText: Bool
    private let lock = NSLock()
    // Under `lock`:
    private var delegate: (any TransportDelegate)?
    private var outgoing: [[UInt8]] = []
    private var closing = false
    private var closeDeadlineSet = false
    private var connectionID: UInt64 = 0
    // Service thread only:
    private(set) var wsi: OpaquePointer?
    private var incoming = MessageAssembler(limit: ProtocolLimits.messageBytes)

    init(loop: ClientLoop, address: WebSocketAddress, subprotocol: String) {
        self.loop = loop
        self.address = address
        self.subprotocol = subprotocol
        isText = subprotocol == WireProtocol.jsonSubprotocol
    }

    func open(_ delegate: any TransportDelegate) {
        lock.withLock { self.delegate = delegate }
        loop.requestConnect(self)
    }

    func send(_ message: [UInt8]) {
        lock.withLock {
            // Every write gets its own buffer: a client's write masks the
            // payload in place.
            outgoing.append([UInt8](repeating: 0, count: easel_lws_pre) + message)
        }
        // Before the connection exists the loop ignores this; opening flushes.
        loop.requestWritable(id)
    }

    func close() {
        lock.withLock { closing = true }
        loop.requestWritable(id)
    }

    /// True once, the first time it is asked after a close began: the loop
    /// then gives the close a deadline.
    func takeCloseDeadline() -> Bool {
        lock.withLock {
            guard closing, !closeDeadlineSet else { return false }
            closeDeadlineSet = true
            return true
        }
    }

    /// Closes from the loop's own thread (the loop is shutting down).
    func closeFromLoop() {
        lock.withLock { closing = true }
        if let wsi { lws_callback_on_writable(wsi) }
    }

    /// The loop's number for this connection (0 until it connects).
    var id: UInt64 {
        get { lock.withLock { connectionID } }
        set { lock.withLock { connectionID = newValue } }
    }

    // MARK: On the loop's thread

    func opened(_ wsi: OpaquePointer) {
        self.wsi = wsi
        lock.withLock { delegate }?.transportOpened()
        lws_callback_on_writable(wsi)
    }

    /// Joins a message's pieces; false (close the connection) when it grows
    /// beyond the protocol's limit.
    func received(_ input: UnsafeMutableRawPointer?, _ length: Int, complete: Bool) -> Bool {
        switch incoming.add(UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length), isLast: complete) {
        case .incomplete: return true
        case .tooLarge: return false
        case .message(let message):
            lock.withLock { delegate }?.transportReceived(message)
            return true
        }
    }

    func writable() -> Int32 {
        guard let wsi else { return -1 }
        let (frame, more, closing) = lock.withLock { () -> ([UInt8]?, Bool, Bool) in
            let frame = outgoing.isEmpty ? nil : outgoing.removeFirst()
            return (frame, !outgoing.isEmpty, self.closing)
        }
        if var frame {
            let pre = easel_lws_pre
            let written = frame.withUnsafeMutableBytes { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return -1 }
                return easel_lws_write_message(
                    wsi, base.assumingMemoryBound(to: UInt8.self) + pre, buffer.count - pre, isText ? 1 : 0)
            }
            if written < 0 { return -1 }
            if more || closing { lws_callback_on_writable(wsi) }
            return 0
        }
        if closing {
            easel_lws_close_reason(wsi, CloseCode.normal.rawValue)
            return -1
        }
        return 0
    }

    func closed() {
        wsi = nil
        let delegate = lock.withLock {
            defer { self.delegate = nil }
            return self.delegate
        }
        delegate?.transportClosed()
    }
}
