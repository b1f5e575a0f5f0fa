import EaselModel

/// What `BlobStore.collect` did.
public struct BlobCollection: Hashable, Sendable {
    public var removed: Int
    public var removedBytes: Int64
    /// Blobs no document references yet, kept for their grace period.
    public var inGrace: Int
    public var kept: Int

    public init(removed: Int, removedBytes: Int64, inGrace: Int, kept: Int) {
        self.removed = removed
        self.removedBytes = removedBytes
        self.inGrace = inGrace
        self.kept = kept
    }
}

extension BlobStore {
    /// Removes the blobs no document of `opLog` refers to, except those
    /// uploaded to some document at or after `graceStart` (milliseconds): a
    /// client uploads a blob just before it places it, so a fresh one is
    /// not garbage yet. Also detaches blobs from documents that do not
    /// exist, once past the grace period (a blob may be uploaded before its
    /// document's first op).
    ///
    /// Safe while a server runs: the references are read in one read
    /// transaction of the op log, which keeps no op commit waiting, and the
    /// removal is one transaction of the blob file. An op committed between
    /// the two refers to a blob uploaded just before it, which is in grace.
    public func collect(referencedBy opLog: OpStore, graceStart: Int64) throws(StoreError) -> BlobCollection {
        let references = try opLog.blobReferences()
        return try database.inTransaction { () throws(StoreError) in
            let stale = try database.statement(
                "SELECT DISTINCT document FROM blob_documents WHERE uploaded_at < ?")
            try stale.bind(1, graceStart)
            var gone: [String] = []
            while try stale.step() {
                let document = stale.text(0)
                if !references.documents.contains(document) { gone.append(document) }
            }
            stale.reset()
            let detach = try database.statement("DELETE FROM blob_documents WHERE document = ? AND uploaded_at < ?")
            for document in gone {
                detach.reset()
                try detach.bind(1, document)
                try detach.bind(2, graceStart)
                try detach.step()
            }
            let statement = try database.statement(
                """
                SELECT blobs.hash, blobs.size, coalesce(max(blob_documents.uploaded_at), blobs.created_at)
                FROM blobs LEFT JOIN blob_documents ON blob_documents.hash = blobs.hash GROUP BY blobs.hash
                """)
            var doomed: [(BlobHash, Int64)] = []
            var result = BlobCollection(removed: 0, removedBytes: 0, inGrace: 0, kept: 0)
            while try statement.step() {
                let hash = BlobHash(bytes: statement.blob(0))
                if references.blobs.contains(hash) {
                    result.kept += 1
                } else if statement.int64(2) >= graceStart {
                    result.inGrace += 1
                } else {
                    doomed.append((hash, statement.int64(1)))
                }
            }
            statement.reset()
            let removeBlob = try database.statement("DELETE FROM blobs WHERE hash = ?")
            for (hash, size) in doomed {
                // The blob row first: it refers to its upload.
                let upload = try blobRow(hash)
                removeBlob.reset()
                try removeBlob.bind(1, hash.bytes)
                try removeBlob.step()
                if let upload { try abandonUpload(UploadID(rawValue: upload)) }
                result.removed += 1
                result.removedBytes += size
            }
            return result
        }
    }
}
