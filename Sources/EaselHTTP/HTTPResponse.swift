/// An HTTP answer on the server's port, as a value: the host writes it out.
public struct HTTPResponse: Hashable, Sendable {
    public var status: UInt32
    public var contentType: String
    /// Headers beyond the status, content type and length, in order.
    public var headers: [Header]
    public var body: [UInt8]

    public struct Header: Hashable, Sendable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(status: UInt32, contentType: String, headers: [Header] = [], body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// Plain text, never sniffed as anything else.
    public static func text(_ status: UInt32, _ text: String, headers: [Header] = []) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "text/plain; charset=utf-8",
            headers: [Header("x-content-type-options", "nosniff")] + headers, body: Array(text.utf8))
    }

    /// The extra headers as the libwebsockets shim takes them: one
    /// `name: value` a line.
    package var headerLines: String {
        headers.map { "\($0.name): \($0.value)\n" }.joined()
    }
}
