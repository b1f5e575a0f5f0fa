import EaselModel
import EaselProtocol

/// Where a document's blobs come from and go to: the server's
/// `/blobs/<sha256>?doc=<document>` (Protocol/README.md, section 10), over
/// whatever HTTP the app has. One transport speaks for one document and
/// one token.
public protocol BlobTransport: Sendable {
    /// The blob's bytes as the server sends them; the caller checks them
    /// against the hash. `progress` hears the bytes received so far and, when
    /// the server said, the total.
    func download(_ blob: BlobHash, progress: @escaping @Sendable (BlobProgress) -> Void) async throws(BlobTransferError)
        -> [UInt8]

    /// Stores the bytes under their hash. Returns whether this upload stored
    /// them (false: the server already had them).
    func upload(_ bytes: [UInt8], as blob: BlobHash, progress: @escaping @Sendable (BlobProgress) -> Void)
        async throws(BlobTransferError) -> Bool
}

/// How far a transfer has come.
public struct BlobProgress: Hashable, Sendable {
    public var bytes: Int
    /// The whole size, when known.
    public var total: Int?

    public init(bytes: Int, total: Int?) {
        self.bytes = bytes
        self.total = total
    }
}

/// Why a blob transfer failed, and whether trying again may help.
public struct BlobTransferError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Protocol/README.md, section 10: one table for every client.
    public typealias Kind = BlobFailure

    public var kind: Kind
    /// The HTTP status, when there was a response.
    public var status: Int?
    public var message: String

    public init(_ kind: Kind, status: Int? = nil, _ message: String) {
        self.kind = kind
        self.status = status
        self.message = message
    }

    /// Worth another try: the server may recover, or the bytes arrive whole.
    public var isTransient: Bool { kind.isTransient }

    public var description: String {
        status.map { "\($0): \(message)" } ?? message
    }
}
