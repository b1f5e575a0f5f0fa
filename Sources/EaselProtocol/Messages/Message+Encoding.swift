extension Message {
    /// The message in a connection's encoding.
    public func encoded(as encoding: WireEncoding) -> [UInt8] {
        switch encoding {
        case .binary: binaryEncoded()
        case .json: jsonEncoded()
        }
    }

    /// Decodes one WebSocket message in a connection's encoding.
    public init(decoding bytes: [UInt8], as encoding: WireEncoding) throws(DecodeError) {
        switch encoding {
        case .binary: try self.init(binary: bytes)
        case .json: try self.init(json: bytes)
        }
    }
}
