import EaselModel
import EaselProtocol

/// The server's seam for blobs (Protocol/README.md, section 10): uploads
/// streamed a chunk at a time, and downloads read the same way. The SQLite
/// adapter is the server's; another database needs only another adapter.
///
/// Calls for one upload are made in order and the adapter runs them in
/// that order; completions may run later and on another thread. The caller
/// names each upload with a handle of its own, so it can append before it
/// has heard that the upload began.
public protocol BlobStorage: AnyObject, Sendable {
    func beginUpload(
        _ upload: UploadHandle, at now: Timestamp,
        completion: @escaping @Sendable (Result<Void, StorageFailure>) -> Void)

    func appendChunk(
        _ bytes: [UInt8], to upload: UploadHandle, sequence: Int,
        completion: @escaping @Sendable (Result<Void, StorageFailure>) -> Void)

    /// Stores what was appended as the blob `hash`, if the bytes hash to
    /// it, for `document` to read; acknowledged only once durable.
    func finishUpload(
        _ upload: UploadHandle, as hash: BlobHash, size: Int64, type: BlobType, document: DocumentName,
        at now: Timestamp, completion: @escaping @Sendable (Result<UploadFinish, StorageFailure>) -> Void)

    /// Drops what was appended (an upload refused or cut short). Nobody waits.
    func abandonUpload(_ upload: UploadHandle)

    /// The blob, when it was uploaded to the document.
    func locate(
        _ hash: BlobHash, in document: DocumentName,
        completion: @escaping @Sendable (Result<StoredBlob?, StorageFailure>) -> Void)

    /// One chunk of a stored blob's bytes; nil when it is gone.
    func readChunk(
        _ sequence: Int, of blob: StoredBlob, completion: @escaping @Sendable (Result<[UInt8]?, StorageFailure>) -> Void)
}

/// An upload as its caller names it.
public struct UploadHandle: Hashable, Sendable {
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }
}

/// How a finished upload ended.
public enum UploadFinish: Hashable, Sendable {
    /// The bytes are new.
    case created
    /// The blob was stored already; the document may now read it too.
    case alreadyStored
    /// The bytes hash to this, not to the name given: nothing was stored.
    case wrongHash(BlobHash)
}

/// A stored blob, as a download reads it.
public struct StoredBlob: Hashable, Sendable {
    public var hash: BlobHash
    public var size: Int64
    public var type: BlobType
    /// How many chunks its bytes are in.
    public var chunks: Int
    /// Where the adapter keeps it; opaque above the port.
    public var key: Int64

    public init(hash: BlobHash, size: Int64, type: BlobType, chunks: Int, key: Int64) {
        self.hash = hash
        self.size = size
        self.type = type
        self.chunks = chunks
        self.key = key
    }
}
