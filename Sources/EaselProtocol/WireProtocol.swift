/// The protocol's version and names, in one place (Protocol/README.md).
public enum WireProtocol {
    /// The highest protocol version this code speaks. Version 2 adds one
    /// optional field to presence (`state`), which a server never sends to a
    /// connection that speaks version 1; version 3 adds the eraser field
    /// `erases`, which a server never sends to one that speaks 1 or 2;
    /// version 4 adds character ops on texts (`insertText`, `deleteText`),
    /// which a connection below it gets as writes of whole strings.
    public static let version: UInt32 = 4
    /// The first version whose presence may carry `state`.
    public static let presenceStateVersion: UInt32 = 2
    /// The first version whose ops may carry the field `erases`.
    public static let erasuresVersion: UInt32 = 3
    /// The first version with character ops on texts.
    public static let textVersion: UInt32 = 4
    /// The first byte of every binary message: the layout of the frame,
    /// which versions 1 and 2 share.
    public static let frameVersion: UInt8 = 1
    /// The WebSocket subprotocol of the binary encoding (and the default).
    public static let binarySubprotocol = "easel.v1"
    /// The WebSocket subprotocol of the JSON encoding.
    public static let jsonSubprotocol = "easel.v1.json"
}

/// Which of the two encodings a connection speaks.
public enum WireEncoding: String, CaseIterable, Hashable, Sendable {
    case binary
    case json

    /// The encoding a WebSocket subprotocol names, if any.
    public init?(subprotocol: String) {
        switch subprotocol {
        case WireProtocol.binarySubprotocol: self = .binary
        case WireProtocol.jsonSubprotocol: self = .json
        default: return nil
        }
    }

    public var subprotocol: String {
        switch self {
        case .binary: WireProtocol.binarySubprotocol
        case .json: WireProtocol.jsonSubprotocol
        }
    }
}
