import EaselModel
import EaselPostgres
import EaselProtocol
import EaselStore
import EaselSync
import Foundation

/// PostgreSQL's blob tables, shared by every node, on the blob thread's
/// own connection (made again if it breaks).
final class PostgresBlobRows: BlobRows {
    private let connected: ReconnectingStore

    /// Connects, and drops the uploads killed nodes left over an hour ago
    /// (younger ones may be other nodes' uploads in flight).
    init(url: String, now: Int64) throws(PostgresError) {
        let store = try PostgresStore(url: url, migrating: false, setup: PostgresStore.blobSetup)
        try store.removeAbandonedUploads(startedBefore: now - 3_600_000)
        connected = ReconnectingStore(store, url: url, setup: PostgresStore.blobSetup)
    }

    private func port<T>(_ body: (PostgresStore) throws(PostgresError) -> T) throws(StorageFailure) -> T {
        do throws(PostgresError) {
            return try body(connected.store())
        } catch {
            throw StorageFailure(error)
        }
    }

    func beginUpload(at now: Int64) throws(StorageFailure) -> UploadID {
        try port { store throws(PostgresError) in try store.beginUpload(at: now) }
    }

    func appendChunk(_ bytes: [UInt8], to upload: UploadID, sequence: Int) throws(StorageFailure) {
        try port { store throws(PostgresError) in try store.appendChunk(bytes, to: upload, sequence: sequence) }
    }

    func finishUpload(
        _ upload: UploadID, as hash: BlobHash, size: Int64, type: BlobType, document: String, at now: Int64
    ) throws(StorageFailure) -> BlobStored {
        try port { store throws(PostgresError) in
            try store.finishUpload(upload, as: hash, size: size, type: type, document: document, at: now)
        }
    }

    func abandonUpload(_ upload: UploadID) throws(StorageFailure) {
        try port { store throws(PostgresError) in try store.abandonUpload(upload) }
    }

    func locate(_ hash: BlobHash, in document: String) throws(StorageFailure) -> StoredBlob? {
        try port { store throws(PostgresError) -> StoredBlob? in
            guard let (info, upload, chunks) = try store.locateBlob(hash, document: document) else { return nil }
            return StoredBlob(hash: hash, size: info.size, type: info.type, chunks: chunks, key: upload.rawValue)
        }
    }

    func chunk(_ sequence: Int, of upload: UploadID) throws(StorageFailure) -> [UInt8]? {
        try port { store throws(PostgresError) in try store.chunk(sequence, of: upload) }
    }
}
