import CLibWebSockets
import Crypto
import EaselLocking
import EaselModel
import EaselProtocol
import EaselStore
import EaselSync
import Foundation

/// What the blob thread needs of a database: SQLite's blob file
/// (`SQLiteBlobRows`) or PostgreSQL (`PostgresBlobRows`). Used by that
/// thread alone; failures come as the port's.
protocol BlobRows {
    func beginUpload(at now: Int64) throws(StorageFailure) -> UploadID
    func appendChunk(_ bytes: [UInt8], to upload: UploadID, sequence: Int) throws(StorageFailure)
    /// Makes the upload the blob, durable before it returns.
    func finishUpload(
        _ upload: UploadID, as hash: BlobHash, size: Int64, type: BlobType, document: String, at now: Int64
    ) throws(StorageFailure) -> BlobStored
    func abandonUpload(_ upload: UploadID) throws(StorageFailure)
    func locate(_ hash: BlobHash, in document: String) throws(StorageFailure) -> StoredBlob?
    func chunk(_ sequence: Int, of upload: UploadID) throws(StorageFailure) -> [UInt8]?
}

/// A blob store behind the blob port, on a thread and database connection
/// of its own, so the service thread never waits on the database for a
/// blob. One thread, jobs in order: an upload's begin, chunks and finish
/// run in order, each chunk in its own short transaction, and downloads
/// read a chunk at a time between them. An upload's bytes are hashed here
/// as they are stored, keeping 10 MiB of SHA-256 off the service thread.
///
/// The thread runs at a lower scheduling priority (nice 10) than the
/// service and storage threads: moving megabytes of image is bulk work,
/// and on a machine with few cores it must not delay a push's commit and
/// ack (Docs/server.md measures what it changes).
final class StoreBlobStorage: BlobStorage {
    /// What only the blob thread touches: the rows, and each upload's id
    /// and hash so far. In a mutex the thread alone takes, so the compiler
    /// can check what crosses.
    private struct Uploads: ~Copyable {
        let rows: any BlobRows
        var open: [UploadHandle: (id: UploadID, hasher: SHA256)] = [:]
    }

    private typealias Job = @Sendable (inout Uploads) -> Void
    private let thread: WorkerThread<Job>

    /// How much less the blob thread is scheduled than the others.
    static let niceness: Int32 = 10

    /// The SQLite blob file beside the op log's database.
    convenience init(besideDatabase path: String, durability: Durability) throws(StoreError) {
        try self.init(rows: SQLiteBlobRows(besideDatabase: path, durability: durability))
    }

    init(rows: sending any BlobRows) {
        let uploads = Locked(Uploads(rows: rows))
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
        _ work: @escaping @Sendable (inout Uploads) throws(StorageFailure) -> T,
        _ completion: @escaping @Sendable (Result<T, StorageFailure>) -> Void
    ) {
        thread.add { uploads in
            completion(Result { () throws(StorageFailure) -> T in try work(&uploads) })
        }
    }

    private static func notOpen(_ upload: UploadHandle) -> StorageFailure {
        StorageFailure(.closed, "upload \(upload.rawValue) is not open: it never began, or a chunk of it failed")
    }

    func beginUpload(
        _ upload: UploadHandle, at now: Timestamp,
        completion: @escaping @Sendable (Result<Void, StorageFailure>) -> Void
    ) {
        run(
            { uploads throws(StorageFailure) in
                uploads.open[upload] = (try uploads.rows.beginUpload(at: now.rawValue), SHA256())
            }, completion)
    }

    func appendChunk(
        _ bytes: [UInt8], to upload: UploadHandle, sequence: Int,
        completion: @escaping @Sendable (Result<Void, StorageFailure>) -> Void
    ) {
        run(
            { uploads throws(StorageFailure) in
                guard let id = uploads.open[upload]?.id else { throw Self.notOpen(upload) }
                do throws(StorageFailure) {
                    try uploads.rows.appendChunk(bytes, to: id, sequence: sequence)
                } catch {
                    // The finish may be queued behind this chunk already (the
                    // server queues it as the body ends, before it hears how the
                    // chunks went): closed here, the upload cannot become a blob
                    // that names bytes it does not hold. `easel chaos disk` found
                    // such a blob after a write failed.
                    uploads.open[upload] = nil
                    try? uploads.rows.abandonUpload(id)
                    throw error
                }
                uploads.open[upload]?.hasher.update(data: bytes)
            }, completion)
    }

    func finishUpload(
        _ upload: UploadHandle, as hash: BlobHash, size: Int64, type: BlobType, document: DocumentName,
        at now: Timestamp, completion: @escaping @Sendable (Result<UploadFinish, StorageFailure>) -> Void
    ) {
        run(
            { uploads throws(StorageFailure) -> UploadFinish in
                guard let (id, hasher) = uploads.open.removeValue(forKey: upload) else { throw Self.notOpen(upload) }
                let digest = BlobHash(bytes: Array(hasher.finalize()))
                guard digest == hash else {
                    try uploads.rows.abandonUpload(id)
                    return .wrongHash(digest)
                }
                switch try uploads.rows.finishUpload(
                    id, as: hash, size: size, type: type, document: document.rawValue, at: now.rawValue)
                {
                case .created: return .created
                case .alreadyStored: return .alreadyStored
                }
            }, completion)
    }

    func abandonUpload(_ upload: UploadHandle) {
        thread.add { uploads in
            guard let (id, _) = uploads.open.removeValue(forKey: upload) else { return }
            try? uploads.rows.abandonUpload(id)
        }
    }

    func locate(
        _ hash: BlobHash, in document: DocumentName,
        completion: @escaping @Sendable (Result<StoredBlob?, StorageFailure>) -> Void
    ) {
        run({ uploads throws(StorageFailure) in try uploads.rows.locate(hash, in: document.rawValue) }, completion)
    }

    func readChunk(
        _ sequence: Int, of blob: StoredBlob, completion: @escaping @Sendable (Result<[UInt8]?, StorageFailure>) -> Void
    ) {
        run(
            { uploads throws(StorageFailure) in try uploads.rows.chunk(sequence, of: UploadID(rawValue: blob.key)) },
            completion)
    }
}

/// The SQLite blob file (EaselStore's `BlobStore`). Chunks commit without
/// syncing; the upload's last commit syncs them all (`syncingFully`) when
/// the server's durability is full.
final class SQLiteBlobRows: BlobRows {
    private let store: BlobStore
    private let durability: Durability

    init(besideDatabase path: String, durability: Durability) throws(StoreError) {
        self.durability = durability
        store = try BlobStore(besideDatabase: path, durability: .normal)
        // No upload is in flight before the server serves: what is left
        // was cut short by a killed process.
        try store.removeAbandonedUploads()
    }

    private func port<T>(_ body: () throws(StoreError) -> T) throws(StorageFailure) -> T {
        do throws(StoreError) {
            return try body()
        } catch {
            throw StorageFailure(error)
        }
    }

    func beginUpload(at now: Int64) throws(StorageFailure) -> UploadID {
        try port { () throws(StoreError) in try store.beginUpload(at: now) }
    }

    func appendChunk(_ bytes: [UInt8], to upload: UploadID, sequence: Int) throws(StorageFailure) {
        try port { () throws(StoreError) in try store.appendChunk(bytes, to: upload, sequence: sequence) }
    }

    func finishUpload(
        _ upload: UploadID, as hash: BlobHash, size: Int64, type: BlobType, document: String, at now: Int64
    ) throws(StorageFailure) -> BlobStored {
        let store = store
        let finish = { () throws -> BlobStored in
            try store.finishUpload(upload, as: hash, size: size, type: type, document: document, at: now)
        }
        do {
            return try durability == .full ? store.syncingFully(finish) : finish()
        } catch let error as StoreError {
            throw StorageFailure(error)
        } catch {
            throw StorageFailure(.unavailable, "\(error)")
        }
    }

    func abandonUpload(_ upload: UploadID) throws(StorageFailure) {
        try port { () throws(StoreError) in try store.abandonUpload(upload) }
    }

    func locate(_ hash: BlobHash, in document: String) throws(StorageFailure) -> StoredBlob? {
        try port { () throws(StoreError) -> StoredBlob? in
            guard let info = try store.blobInfo(hash, document: document), let upload = try store.blobUpload(hash)
            else { return nil }
            return StoredBlob(
                hash: hash, size: info.size, type: info.type, chunks: try store.chunkCount(of: upload),
                key: upload.rawValue)
        }
    }

    func chunk(_ sequence: Int, of upload: UploadID) throws(StorageFailure) -> [UInt8]? {
        try port { () throws(StoreError) in try store.chunk(sequence, of: upload) }
    }
}
