import EaselModel

/// The first message of a connection: which document, as whom, from where.
public struct Hello: Hashable, Sendable {
    /// The highest protocol version the client speaks.
    public var protocolVersion: UInt32
    public var document: DocumentName
    public var replica: ReplicaID
    public var token: String?
    /// Where the client's copy stands; nil for a client with no copy.
    public var since: ResumePoint?
    public var user: UserInfo

    public init(
        protocolVersion: UInt32 = WireProtocol.version, document: DocumentName, replica: ReplicaID,
        token: String? = nil, since: ResumePoint? = nil, user: UserInfo
    ) {
        self.protocolVersion = protocolVersion
        self.document = document
        self.replica = replica
        self.token = token
        self.since = since
        self.user = user
    }
}

/// The highest position a client holds, and the epoch it got it in.
public struct ResumePoint: Hashable, Sendable {
    public var position: UInt64
    public var epoch: Epoch

    public init(position: UInt64, epoch: Epoch) {
        self.position = position
        self.epoch = epoch
    }
}

/// A document's history generation: it changes when the history is replaced
/// (a restore, an import), so positions of one epoch mean nothing in another.
public struct Epoch: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Sixteen lower-case hex digits, like a replica ID.
    public var description: String { ReplicaID(rawValue: rawValue).description }
}

/// How a user appears to peers.
public struct UserInfo: Hashable, Sendable {
    public var name: String
    public var initials: String
    public var color: Color

    public init(name: String, initials: String, color: Color) {
        self.name = name
        self.initials = initials
        self.color = color
    }

    func validate() throws(DecodeError) {
        try checkLength(name, limit: ProtocolLimits.userNameBytes, of: "user name")
        try checkLength(initials, limit: ProtocolLimits.initialsBytes, of: "initials")
    }
}

/// A document's name: 1–128 bytes of segments joined by single `/`, each of
/// `A-Z a-z 0-9 . _ -` and starting with a letter or digit — safe in a URL,
/// a file path (no `..`, no empty segment) and a log line.
public struct DocumentName: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) throws(DecodeError) {
        let bytes = rawValue.utf8
        guard !bytes.isEmpty, bytes.count <= ProtocolLimits.documentNameBytes else {
            throw DecodeError(
                .invalidValue, "a document name has 1 to \(ProtocolLimits.documentNameBytes) bytes, not \(bytes.count)")
        }
        let segments = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let valid = segments.allSatisfy { segment in
            guard let first = segment.first, Self.isAlphanumeric(first) else { return false }
            return segment.allSatisfy { Self.isAlphanumeric($0) || Self.punctuation.contains($0) }
        }
        guard valid else {
            throw DecodeError(
                .invalidValue,
                "document name \"\(rawValue)\": segments joined by /, each of A-Z a-z 0-9 . _ - and starting with a letter or digit"
            )
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    private static let punctuation: [UInt8] = Array("._-".utf8)

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"):
            true
        default: false
        }
    }
}

/// Refuses a string over its byte limit with `tooLarge`.
func checkLength(_ string: String, limit: Int, of what: String) throws(DecodeError) {
    let bytes = string.utf8.count
    guard bytes <= limit else { throw DecodeError(.tooLarge, "\(what) is \(bytes) bytes; at most \(limit)") }
}
