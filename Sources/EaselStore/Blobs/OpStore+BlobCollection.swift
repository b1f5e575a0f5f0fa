import EaselModel
import EaselProtocol

/// What `collectBlobs` did.
public struct BlobCollection: Hashable, Sendable {
    public var removed: Int
    public var removedBytes: Int64
    /// Blobs no document references yet, kept for their grace period.
    public var inGrace: Int
    public var kept: Int
}

extension OpStore {
    /// The blobs a document refers to: in its latest snapshot's state and in
    /// every op of its retained log (undo can bring an old image back).
    public func blobReferences(of name: String) throws(StoreError) -> Set<BlobHash> {
        var found: Set<BlobHash> = []
        func note(_ op: Op) {
            op.forEachBlob { found.insert($0) }
        }
        if let snapshot = try latestSnapshot(of: name) { snapshot.state.forEach(note) }
        for stored in try ops(of: name, after: 0) { note(stored.op) }
        return found
    }

    /// Removes the blobs no document refers to, except those uploaded to
    /// some document at or after `graceStart` (milliseconds): an upload is
    /// placed after it is stored, so a fresh one is not garbage yet. Also
    /// detaches a blob from documents that no longer exist. Runs in one
    /// transaction, so it is safe while a server runs.
    public func collectBlobs(graceStart: Int64) throws(StoreError) -> BlobCollection {
        try inTransaction { () throws(StoreError) in
            try database.execute("DELETE FROM blob_documents WHERE document NOT IN (SELECT name FROM documents)")
            var referenced: Set<BlobHash> = []
            for summary in try listDocuments() { referenced.formUnion(try blobReferences(of: summary.info.name)) }
            let statement = try database.statement(
                """
                SELECT blobs.hash, blobs.size, coalesce(max(blob_documents.uploaded_at), blobs.created_at)
                FROM blobs LEFT JOIN blob_documents ON blob_documents.hash = blobs.hash GROUP BY blobs.hash
                """)
            var doomed: [(BlobHash, Int64)] = []
            var result = BlobCollection(removed: 0, removedBytes: 0, inGrace: 0, kept: 0)
            while try statement.step() {
                let hash = BlobHash(bytes: statement.blob(0))
                if referenced.contains(hash) {
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
                try removeBlob.bind(1, hash.bytes)
                // The blob row first: it refers to its upload.
                let upload = try blobRow(hash)
                try removeBlob.step()
                removeBlob.reset()
                if let upload { try abandonUpload(UploadID(rawValue: upload)) }
                result.removed += 1
                result.removedBytes += size
            }
            return result
        }
    }
}
