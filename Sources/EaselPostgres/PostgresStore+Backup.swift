import EaselModel
import EaselProtocol
import EaselStore
import Foundation

/// A cluster's backup is an Easel SQLite database and its blob file, the
/// same pair a single server's `easel db backup` writes: `easel db restore`
/// brings a document back from either into either store, and
/// `easel serve --db` serves one as it is.
extension PostgresStore {
    /// What a backup wrote.
    public struct BackupSummary: Hashable, Sendable {
        public var documents: Int
        public var blobs: Int
    }

    /// Writes every document (its kept log, from its snapshot) and every
    /// blob with the documents it was uploaded to into a new SQLite
    /// database at `path` and its blob file beside it, read in one
    /// repeatable-read transaction: one moment of the cluster, whatever the
    /// nodes commit meanwhile (a transaction that long holds PostgreSQL's
    /// vacuum back while it runs). Epochs and creation times are kept.
    /// Never overwrites a file; a backup that fails is removed.
    public func backup(to path: String, at now: Int64) throws -> BackupSummary {
        let blobPath = BlobStore.path(besideDatabase: path)
        // Made here, or refused: the cleanup below removes only what this made.
        for file in [path, blobPath] {
            let descriptor = open(file, O_CREAT | O_EXCL | O_WRONLY, 0o644)
            guard descriptor >= 0 else {
                if file == blobPath { try? FileManager.default.removeItem(atPath: path) }
                throw PostgresError(
                    .refused,
                    errno == EEXIST
                        ? "\(file) already exists: a backup never overwrites a file"
                        : "cannot create \(file): \(String(cString: strerror(errno)))")
            }
            close(descriptor)
        }
        do {
            let opLog = try OpStore(path: path)
            let blobs = try BlobStore(besideDatabase: path)
            var summary = BackupSummary(documents: 0, blobs: 0)
            try readConsistently { () throws(PostgresError) in
                summary.documents = try copyDocuments(into: opLog, at: now)
                summary.blobs = try copyBlobs(into: blobs)
            }
            return summary
        } catch {
            for file in [path, blobPath, path + "-wal", path + "-shm", blobPath + "-wal", blobPath + "-shm"] {
                try? FileManager.default.removeItem(atPath: file)
            }
            throw error
        }
    }

    /// Replaces one document's history with its history in a backup (this
    /// store's or a single server's), under a new epoch so clients start
    /// again from a snapshot; refused while a live node holds its lease.
    /// The blobs the backup held for it come first, so no op of the restored
    /// history names a blob the cluster lacks.
    public func restore(_ name: String, from backupPath: String, at now: Int64) throws -> ImportSummary {
        if let holder = try servingNode(of: name) {
            throw PostgresError(
                .refused,
                "node \(holder.name) (\(holder.address)) serves \(name): try again once nobody has it open "
                    + "(an idle room unloads), or drain that node")
        }
        let (backup, backupBlobs) = try OpStore.openBackup(at: backupPath)
        var lines: [String] = []
        try backup.exportLog(name) { lines.append($0) }
        // Refused after all (a node took the document since the look above),
        // the blobs stay, unreferenced, until `easel db gc`.
        if let backupBlobs {
            for blob in try backupBlobs.blobs(ofDocument: name) {
                try bringBack(blob, of: name, from: backupBlobs, at: now)
            }
        }
        return try importLog(lines, as: name, replace: true, at: now)
    }

    // MARK: Copying out

    private func copyDocuments(into opLog: OpStore, at now: Int64) throws(PostgresError) -> Int {
        let names = try connection.query("SELECT name, created_at FROM documents ORDER BY name")
        for row in 0..<names.count {
            let name = try names.text(row, 0)
            let createdAt = try names.int64(row, 1)
            var lines: [String] = []
            try writeLog(of: name) { lines.append($0) }
            do {
                // Dated as the document was created, not as backed up.
                _ = try opLog.importLog(lines, as: name, replace: false, at: createdAt, keepingEpoch: true)
            } catch {
                throw PostgresError(.unexpected, "cannot write \(name) into the backup: \(error)")
            }
        }
        return names.count
    }

    /// Each blob chunk by chunk, attached to every document it was uploaded
    /// to (a blob attached to none is garbage, and left out).
    private func copyBlobs(into blobs: BlobStore) throws(PostgresError) -> Int {
        let rows = try connection.query(
            """
            SELECT hash, size, type, upload FROM blobs b
            WHERE EXISTS (SELECT 1 FROM blob_documents d WHERE d.hash = b.hash) ORDER BY hash
            """)
        for row in 0..<rows.count {
            let hash = BlobHash(bytes: try rows.bytes(row, 0))
            let size = try rows.int64(row, 1)
            guard let type = BlobType(rawValue: try rows.text(row, 2)) else {
                throw PostgresError(.corrupt, "blob \(hash) has an unknown type")
            }
            let upload = UploadID(rawValue: try rows.int64(row, 3))
            let attached = try connection.query(
                "SELECT document, uploaded_at FROM blob_documents WHERE hash = $1 ORDER BY document"
            ) { $0.append(bytes: hash.bytes) }
            do {
                for index in 0..<attached.count {
                    let (document, at) = (try attached.text(index, 0), try attached.int64(index, 1))
                    let copy = try blobs.beginUpload(at: at)
                    // The first carries the bytes; after it, an upload of no
                    // chunks attaches the stored blob.
                    var sequence = 0
                    while index == 0, let bytes = try chunk(sequence, of: upload) {
                        try blobs.appendChunk(bytes, to: copy, sequence: sequence)
                        sequence += 1
                    }
                    _ = try blobs.finishUpload(copy, as: hash, size: size, type: type, document: document, at: at)
                }
            } catch let error as PostgresError {
                throw error
            } catch {
                throw PostgresError(.unexpected, "cannot write blob \(hash) into the backup: \(error)")
            }
        }
        return rows.count
    }

    // MARK: Bringing back

    /// Stores a backup's blob for the document, unless the cluster has it
    /// already: then it is attached to the document.
    private func bringBack(_ blob: BlobInfo, of document: String, from backup: BlobStore, at now: Int64) throws {
        let stored = try connection.query("SELECT 1 FROM blobs WHERE hash = $1") { $0.append(bytes: blob.hash.bytes) }
        guard stored.count == 0 else {
            try attach(blob.hash, to: document, at: now)
            return
        }
        let upload = try beginUpload(at: now)
        do {
            var sequence = 0
            try backup.readBlob(blob.hash) { bytes in
                try appendChunk(bytes, to: upload, sequence: sequence)
                sequence += 1
            }
            _ = try finishUpload(upload, as: blob.hash, size: blob.size, type: blob.type, document: document, at: now)
        } catch {
            try? abandonUpload(upload)
            throw error
        }
    }
}
