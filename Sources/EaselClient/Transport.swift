import EaselProtocol
import Foundation

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

/// Where a session's next connection goes: the document's own path, so a
/// router can send it to the node that serves it, and the node a `moved`
/// error named (Protocol/README.md, sections 1 and 7).
public struct ConnectionRoute: Hashable, Sendable {
    public var encoding: WireEncoding
    public var document: DocumentName
    /// The node to ask the router for; nil lets the router choose.
    public var node: String?

    public init(encoding: WireEncoding, document: DocumentName, node: String? = nil) {
        self.encoding = encoding
        self.document = document
        self.node = node
    }

    /// `/d/<document>`, with `?node=<node>` when there is one (node names
    /// are the operator's and used as they are; document names are URL-safe).
    public var path: String { "/d/\(document.rawValue)" + query }

    /// `?node=<node>`, or nothing.
    public var query: String {
        node.map { "?node=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""
    }

    /// The path to connect to, given the base URL's own: the document's
    /// path when the base names none (`ws://host:port`), else the base's
    /// path with the node query.
    public func path(under basePath: String) -> String {
        basePath.isEmpty || basePath == "/" ? path : basePath + query
    }
}
