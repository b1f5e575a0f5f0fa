/// How big blobs may be and how many may be uploading at once.
public struct BlobLimits: Hashable, Sendable {
    /// The largest blob, in bytes (413 beyond it).
    public var maxBytes: Int64 = 10 << 20
    /// Uploads in flight at once (503 beyond it).
    public var maxUploads = 16
    /// Seconds a blob transfer may go without progress (bytes received, a
    /// chunk stored, a part sent) before its connection is closed; slow
    /// transfers that keep moving are never cut off.
    public var idleSeconds = 30

    public init() {}
}
