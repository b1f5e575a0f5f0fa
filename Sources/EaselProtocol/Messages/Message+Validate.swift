extension Message {
    /// Whether a peer will accept this message: the same limits and rules
    /// the decoders apply (counts, lengths, finite numbers, op rules).
    ///
    /// The encoders write whatever they are given, so a message built from
    /// untrusted or unchecked values (a 10 kB token, 2,000 selected
    /// entities, a NaN cursor) should be checked before it is sent. It
    /// costs an encoding and a decoding.
    public func validate() throws(DecodeError) {
        let decoded = try Message(binary: binaryEncoded())
        // Encoding canonicalises -0; anything else that changed was lost.
        guard decoded == self else {
            throw DecodeError(.invalidValue, "the message does not survive encoding")
        }
    }
}
