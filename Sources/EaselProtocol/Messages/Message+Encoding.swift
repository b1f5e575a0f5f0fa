extension Message {
    /// The message in a connection's encoding.
    public func encoded(as encoding: WireEncoding) -> [UInt8] {
        switch encoding {
        case .binary: binaryEncoded()
        case .json:
            #if EASEL_BINARY_WIRE_ONLY
                // The WebAssembly module opens its sessions binary, always:
                // without the JSON writer it is about 10 kB (gzipped) smaller.
                fatalError("this build of EaselProtocol encodes binary only")
            #else
                jsonEncoded()
            #endif
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
