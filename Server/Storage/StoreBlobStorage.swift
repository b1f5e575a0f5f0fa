import CLibWebSockets
import Crypto
import EaselLocking
import EaselModel
import EaselProtocol
import EaselStore
import EaselSync
import Foundation

/// EaselStore's blob store (SQLite) behind the blob port, on a thread and
/// database connection of its own, so the service thread never waits on
/// SQLite for a blob. One thread, jobs in order: an upload's begin, chunks
/// and finish run in order, each chunk in its own short transaction, and
/// downloads read a chunk at a time between them. An upload's bytes are
/// hashed here as they are stored, keeping 10 MiB of SHA-256 off the
/// service thread.
///
/// The thread runs at a lower scheduling priority (nice 10) than the
/// service and storage threads: moving megabytes of image is bulk work,
/// and on a machine with few cores it must not delay a push's commit and
/// ack (Docs/server.md measures what it changes).
final class StoreBlobStorage: BlobStorage {
    /// What only the blob thread touches: the store, and each upload's row
    /// and hash so far. In a mutex the thread alone takes, so the compiler
    /// can check what crosses.
    private struct Uploads: ~Copyable {
        let store: BlobStore
        var open: [UploadHandle: (id: UploadID, hasher: SHA256)] = [:]
    }

    private typealias Job = @Sendable (inout Uploads) -> Void
    private let thread: WorkerThread<Job>
    /// Chunks commit without syncing; the upload's last commit syncs them
    /// all (`BlobStore.syncingFully`) when the server's durability is full.
    private let durability: Durability

    /// How much less the blob thread is scheduled than the others.
    static let niceness: Int32 = 10

    init(besideDatabase path: String, durability: Durability) throws(StoreError) {
        self.durability = durability
        let store = try BlobStore(besideDatabase: path, durability: .normal)
        // No upload is in flight before the server serves: what is left
        // was cut short by a killed process.
        try store.removeAbandonedUploads()
        let uploads = Locked(Uploads(store: store))
        thread = WorkerThread(
            name: "easel-blobs",
            // Failing to lower it changes nothing else.
            started: { _ = easel_lower_thread_priority(Self.niceness) },
            cancel: { _ in },
            run: { jobs in uploads.withLock { uploads in for job in jobs { job(&uploads) } } })
    }

    /// Runs what was queued, then ends the thread (a stopping server).
    func drain() {
        thread.close()
    }

    private func run<T: Sendable>(
        _ work: @escaping @Sendable (inout Uploads) throws(StoreError) -> T,
        _ completion: @escaping @Sendable (Result<T, StorageFailure>) -> Void
    ) {
        thread.add { uploads in
            completion(Result { () throws(StoreError) -> T in try work(&uploads) }.mapError(StorageFailure.init))
        }
    }

    private static func notOpen(_ upload: UploadHandle) -> StoreError {
        StoreError(.closed, "upload \(upload.rawValue) is not open: it never began, or a chunk of it failed")
    }

    func beginUpload(
        _ upload: UploadHandle, at now: Timestamp,
        completion: @escaping @Sendable (Result<Void, StorageFailure>) -> Void
    ) {
        run(
            { uploads throws(StoreError) in
                uploads.open[upload] = (try uploads.store.beginUpload(at: now.rawValue), SHA256())
            }, completion)
    }

    func appendChunk(
        _ bytes: [UInt8], to upload: UploadHandle, sequence: Int,
        completion: @escaping @Sendable (Result<Void, StorageFailure>) -> Void
    ) {
        run(
            { uploads throws(StoreError) in
                guard let id = uploads.open[upload]?.id else { throw Self.notOpen(upload) }
                do throws(StoreError) {
                    try uploads.store.appendChunk(bytes, to: id, sequence: sequence)
                } catch {
                    // The finish may be queued behind this chunk already (the
                    // server queues it as the body ends, before it hears how the
                    // chunks went): closed here, the upload cannot become a blob
                    // that names bytes it does not hold. `easel chaos disk` found
                    // such a blob after a write failed.
                    uploads.open[upload] = nil
                    try? uploads.store.abandonUpload(id)
                    throw error
                }
                uploads.open[upload]?.hasher.update(data: bytes)
            }, completion)
    }

    func finishUpload(
        _ upload: UploadHandle, as hash: BlobHash, size: Int64, type: BlobType, document: DocumentName,
        at now: Timestamp, completion: @escaping @Sendable (Result<UploadFinish, StorageFailure>) -> Void
    ) {
        let durably = durability == .full
        run(
            { uploads throws(StoreError) -> UploadFinish in
                guard let (id, hasher) = uploads.open.removeValue(forKey: upload) else { throw Self.notOpen(upload) }
                let digest = BlobHash(bytes: Array(hasher.finalize()))
                guard digest == hash else {
                    try uploads.store.abandonUpload(id)
                    return .wrongHash(digest)
                }
                let store = uploads.store
                let finish = { () throws -> BlobStored in
                    try store.finishUpload(
                        id, as: hash, size: size, type: type, document: document.rawValue, at: now.rawValue)
                }
                do {
                    switch try durably ? store.syncingFully(finish) : finish() {
                    case .created: return .created
                    case .alreadyStored: return .alreadyStored
                    }
                } catch let error as StoreError {
                    throw error
                } catch {
                    throw StoreError(.sqlite(code: 1), "\(error)")
                }
            }, completion)
    }

    func abandonUpload(_ upload: UploadHandle) {
        thread.add { uploads in
            guard let (id, _) = uploads.open.removeValue(forKey: upload) else { return }
            try? uploads.store.abandonUpload(id)
        }
    }

    func locate(
        _ hash: BlobHash, in document: DocumentName,
        completion: @escaping @Sendable (Result<StoredBlob?, StorageFailure>) -> Void
    ) {
        run(
            { uploads throws(StoreError) -> StoredBlob? in
                let store = uploads.store
                guard let info = try store.blobInfo(hash, document: document.rawValue),
                    let upload = try store.blobUpload(hash)
                else { return nil }
                return StoredBlob(
                    hash: hash, size: info.size, type: info.type, chunks: try store.chunkCount(of: upload),
                    key: upload.rawValue)
            }, completion)
    }

    func readChunk(
        _ sequence: Int, of blob: StoredBlob, completion: @escaping @Sendable (Result<[UInt8]?, StorageFailure>) -> Void
    ) {
        run(
            { uploads throws(StoreError) in
                try uploads.store.chunk(sequence, of: UploadID(rawValue: blob.key))
            }, completion)
    }
}
