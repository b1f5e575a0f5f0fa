/// The boundary between a document session and the WebSocket underneath:
/// small enough that any WebSocket fits behind it. Here libwebsockets does
/// (EaselClientLWS) and `URLSessionWebSocketTask` does (EaselClientURLSession),
/// so a session's code is the same on either.
///
/// A transport carries one connection. It reports what happens on its own
/// thread, in order: `transportOpened` once, any number of
/// `transportReceived`, then `transportClosed` exactly once (also when
/// opening failed).
public protocol WebSocketTransport: AnyObject, Sendable {
    /// Starts connecting; events go to `delegate`.
    func open(_ delegate: any TransportDelegate)
    /// Queues one whole message; safe from any thread.
    func send(_ message: [UInt8])
    /// Closes the connection after what is queued; safe from any thread.
    func close()
}

public protocol TransportDelegate: AnyObject, Sendable {
    func transportOpened()
    func transportReceived(_ message: [UInt8])
    func transportClosed()
}
