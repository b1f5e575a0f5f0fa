import EaselModel
import EaselStore
import Foundation

/// Where a stored blob's bytes are: what a download streams.
struct BlobLocation: Sendable {
    var info: BlobInfo
    var upload: UploadID
    var chunks: Int
}

/// The blob store's own thread and database connection, so the service
/// thread never waits on SQLite for a blob. One serial queue: an upload's
/// begin, chunks and finish run in order, each chunk in its own short
/// transaction, and downloads read a chunk at a time between them.
final class BlobWorker: @unchecked Sendable {
    private let queue = DispatchQueue(label: "easel-blobs", qos: .userInitiated)
    /// Touched only on `queue`.
    private let store: BlobStore

    /// Chunks commit without syncing; the upload's last commit syncs them
    /// all (`BlobStore.syncingFully`) when the server's durability is full.
    let durability: Durability

    init(path: String, durability: Durability) throws(StoreError) {
        self.durability = durability
        store = try BlobStore(besideDatabase: path, durability: .normal)
        // No upload is in flight before the server serves: what is left
        // was cut short by a killed process.
        try store.removeAbandonedUploads()
    }

    /// Runs `work` on the blob thread; `done` is called there with its result.
    func run<T: Sendable>(
        _ work: @escaping @Sendable (BlobStore) throws -> T, done: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        queue.async { [self] in
            done(Result { try work(store) })
        }
    }

    /// Waits for everything queued (a stopping server).
    func drain() {
        queue.sync {}
    }
}

extension BlobStore {
    /// A blob's place, when it was uploaded to the document.
    func blobLocation(_ hash: BlobHash, document: String) throws(StoreError) -> BlobLocation? {
        guard let info = try blobInfo(hash, document: document), let upload = try blobUpload(hash) else { return nil }
        return BlobLocation(info: info, upload: upload, chunks: try chunkCount(of: upload))
    }
}
