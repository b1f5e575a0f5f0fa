import EaselModel
import EaselProtocol
import EaselStore

/// Blobs in PostgreSQL, as the SQLite blob store keeps them: bytes stored
/// once per SHA-256, streamed in chunks that each commit on their own, a
/// blob existing only once the row naming its upload commits. Chunks
/// commit without waiting for the WAL's flush (`synchronous_commit` off on
/// the blob connection); the finishing commit waits for it, and the WAL
/// is flushed in order, so that one flush makes the chunks durable too.
extension PostgresStore {
    /// What the blob connection sets.
    public static let blobSetup = LeaseKeeper.setup + ["SET synchronous_commit = off"]

    public func beginUpload(at now: Int64) throws(PostgresError) -> UploadID {
        let rows = try connection.query("INSERT INTO uploads (started_at) VALUES ($1) RETURNING id") { $0.append(now) }
        return UploadID(rawValue: try rows.int64(0, 0))
    }

    public func appendChunk(_ bytes: [UInt8], to upload: UploadID, sequence: Int) throws(PostgresError) {
        guard bytes.count <= BlobStore.chunkLimit else {
            throw PostgresError(
                .unexpected, "a blob chunk holds at most \(BlobStore.chunkLimit) bytes, not \(bytes.count)")
        }
        try connection.query("INSERT INTO blob_chunks (upload, sequence, bytes) VALUES ($1, $2, $3)") {
            $0.append(upload.rawValue)
            $0.append(Int32(clamping: sequence))
            $0.append(bytes: bytes)
        }
    }

    /// Makes an upload's chunks the blob with this hash, attached to the
    /// document, in one transaction whose commit waits for the WAL's flush.
    /// When the blob exists already (another upload, maybe another node's,
    /// committed it first), this upload's chunks are dropped.
    public func finishUpload(
        _ upload: UploadID, as hash: BlobHash, size: Int64, type: BlobType, document: String, at now: Int64
    ) throws(PostgresError) -> BlobStored {
        try connection.transaction { () throws(PostgresError) -> BlobStored in
            try connection.execute("SET LOCAL synchronous_commit = on")
            // Chunks commit without waiting for the WAL: a database that
            // crashed since may have lost some. A blob is made only of all.
            let held = try connection.query(
                "SELECT coalesce(sum(length(bytes)), 0)::bigint FROM blob_chunks WHERE upload = $1"
            ) { $0.append(upload.rawValue) }
            guard try held.int64(0, 0) == size else {
                throw PostgresError(
                    .unexpected, "upload \(upload.rawValue) holds \(try held.int64(0, 0)) bytes, not \(size)")
            }
            let inserted = try connection.query(
                """
                INSERT INTO blobs (hash, upload, size, type, created_at) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (hash) DO UPDATE SET created_at = blobs.created_at RETURNING xmax = 0
                """
            ) {
                $0.append(bytes: hash.bytes)
                $0.append(upload.rawValue)
                $0.append(size)
                $0.append(type.rawValue)
                $0.append(now)
            }
            // Updated (to lock it, changing nothing) when it was stored
            // already: `easel db gc` cannot remove it under this attach.
            let created = try inserted.bool(0, 0)
            if !created {
                try connection.query("DELETE FROM uploads WHERE id = $1") { $0.append(upload.rawValue) }
            }
            // Uploading again restarts the grace period, as in the SQLite store.
            try attach(hash, to: document, at: now)
            return created ? .created : .alreadyStored
        }
    }

    /// Serves a stored blob to a document too (or restarts its grace period there).
    func attach(_ hash: BlobHash, to document: String, at now: Int64) throws(PostgresError) {
        try connection.query(
            """
            INSERT INTO blob_documents (hash, document, uploaded_at) VALUES ($1, $2, $3)
            ON CONFLICT (hash, document) DO UPDATE
            SET uploaded_at = greatest(blob_documents.uploaded_at, excluded.uploaded_at)
            """
        ) {
            $0.append(bytes: hash.bytes)
            $0.append(document)
            $0.append(now)
        }
    }

    public func abandonUpload(_ upload: UploadID) throws(PostgresError) {
        try connection.query("DELETE FROM uploads WHERE id = $1") { $0.append(upload.rawValue) }
    }

    /// Drops uploads no blob names that began before `cutoff`: what killed
    /// nodes left. Other nodes' uploads in flight are younger (an upload
    /// idle for an hour at most is cut off by its node).
    @discardableResult
    public func removeAbandonedUploads(startedBefore cutoff: Int64) throws(PostgresError) -> Int {
        try connection.query(
            "DELETE FROM uploads WHERE started_at < $1 AND NOT EXISTS (SELECT 1 FROM blobs WHERE upload = uploads.id)"
        ) { $0.append(cutoff) }.changed
    }

    /// The blob, when it was uploaded to the document: its size, type,
    /// upload and chunks.
    public func locateBlob(_ hash: BlobHash, document: String) throws(PostgresError) -> (
        info: BlobInfo, upload: UploadID, chunks: Int
    )? {
        let rows = try connection.query(
            """
            SELECT b.size, b.type, b.upload, (SELECT count(*) FROM blob_chunks WHERE upload = b.upload)
            FROM blobs b JOIN blob_documents d ON d.hash = b.hash WHERE b.hash = $1 AND d.document = $2
            """
        ) {
            $0.append(bytes: hash.bytes)
            $0.append(document)
        }
        guard rows.count == 1 else { return nil }
        let typeName = try rows.text(0, 1)
        guard let type = BlobType(rawValue: typeName) else {
            throw PostgresError(.corrupt, "blob \(hash) has an unknown type \(typeName)")
        }
        return (
            BlobInfo(hash: hash, size: try rows.int64(0, 0), type: type), UploadID(rawValue: try rows.int64(0, 2)),
            Int(try rows.int64(0, 3))
        )
    }

    /// A stored blob's whole bytes, whichever document it was uploaded to;
    /// nil when there is no such blob.
    public func blobBytes(_ hash: BlobHash) throws(PostgresError) -> [UInt8]? {
        let rows = try connection.query(
            """
            SELECT c.bytes FROM blobs b JOIN blob_chunks c ON c.upload = b.upload
            WHERE b.hash = $1 ORDER BY c.sequence
            """
        ) { $0.append(bytes: hash.bytes) }
        guard rows.count > 0 else { return nil }
        var bytes: [UInt8] = []
        for row in 0..<rows.count { bytes += try rows.bytes(row, 0) }
        return bytes
    }

    /// One chunk of an upload's bytes (sequence numbers from 0), or nil.
    public func chunk(_ sequence: Int, of upload: UploadID) throws(PostgresError) -> [UInt8]? {
        let rows = try connection.query("SELECT bytes FROM blob_chunks WHERE upload = $1 AND sequence = $2") {
            $0.append(upload.rawValue)
            $0.append(Int32(clamping: sequence))
        }
        return rows.count == 1 ? try rows.bytes(0, 0) : nil
    }
}
