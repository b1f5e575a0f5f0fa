/// The first request's head on a new connection, checked before libwebsockets
/// parses it. lws closes a connection without a word when a path holds a NUL
/// byte or a head outgrows its header space; a client, a proxy or a person
/// with curl deserves the status and a reason instead. Pure: bytes in,
/// a verdict out.
package enum RequestHead {
    /// The longest request line (method, path, version), in bytes.
    package static let lineLimit = 4096
    /// The longest head: request line and headers, up to the blank line.
    package static let headLimit = 16 << 10

    package enum Verdict: Equatable {
        /// The head has not ended yet and nothing is wrong so far.
        case incomplete
        /// A head that lws may parse; it ends after `length` bytes.
        case complete(length: Int)
        case refused(Refusal)
    }

    package struct Refusal: Equatable, Sendable {
        package var status: Int
        package var reason: String

        package static let notHTTP = Refusal(status: 400, reason: "this is an HTTP/1.1 server (and WebSockets over it)")
        package static let nulByte = Refusal(status: 400, reason: "a request may not hold a NUL byte, raw or as %00")
        package static let lineTooLong = Refusal(
            status: 414, reason: "a request line (method, path and version) has at most \(lineLimit) bytes here")
        package static let headTooLarge = Refusal(
            status: 431, reason: "a request's headers have at most \(headLimit) bytes here")
        package static let tooSlow = Refusal(status: 408, reason: "a request's headers must arrive within 10 s")
    }

    package static func check(_ bytes: some Collection<UInt8>) -> Verdict {
        let bytes = Array(bytes)
        let lineEnd = bytes.firstRange(of: [0x0D, 0x0A])?.lowerBound
        let line = bytes[..<(lineEnd ?? bytes.count)]
        if !looksLikeRequestLine(line, whole: lineEnd != nil) { return .refused(.notHTTP) }
        if line.count > lineLimit { return .refused(.lineTooLong) }
        // Only the head: a body after it may hold any byte.
        let end = bytes.firstRange(of: [0x0D, 0x0A, 0x0D, 0x0A])?.upperBound
        if bytes[..<(end ?? bytes.count)].contains(0) || containsEncodedNUL(line) { return .refused(.nulByte) }
        if let end { return end > headLimit ? .refused(.headTooLarge) : .complete(length: end) }
        return bytes.count > headLimit ? .refused(.headTooLarge) : .incomplete
    }

    /// `%00`, in either case of hex digit, which lws would decode to a NUL.
    private static func containsEncodedNUL(_ line: ArraySlice<UInt8>) -> Bool {
        line.firstRange(of: Array("%00".utf8)) != nil
    }

    /// A method of capital letters, a space, a target; the version once the
    /// line is whole. Checked only as far as the bytes go, so a head that
    /// arrives a byte at a time is not refused early.
    private static func looksLikeRequestLine(_ line: ArraySlice<UInt8>, whole: Bool) -> Bool {
        let method = line.prefix { (0x41...0x5A).contains($0) }
        if method.count == line.count { return !whole && method.count <= 16 }
        guard !method.isEmpty, method.count <= 16, line[line.startIndex + method.count] == 0x20 else { return false }
        guard whole else { return true }
        let version = Array(" HTTP/1.".utf8)
        guard line.count > method.count + version.count + 1 else { return false }
        return Array(line.suffix(version.count + 1).prefix(version.count)) == version
    }
}
