import EaselModel
import EaselProtocol
import EaselStore

/// `easel db gc` on a cluster's database, as on the SQLite file's blobs.
extension PostgresStore {
    /// Every document's name and every blob any of them refers to, in its
    /// latest snapshot's state or any op of its kept log (undo can bring an
    /// old image back), from one consistent view.
    public func blobReferences() throws(PostgresError) -> (documents: Set<String>, blobs: Set<BlobHash>) {
        try readConsistently { () throws(PostgresError) in
            var documents: Set<String> = []
            var blobs: Set<BlobHash> = []
            func note(_ op: Op) {
                op.forEachBlob { blobs.insert($0) }
            }
            let rows = try connection.query("SELECT name FROM documents")
            for row in 0..<rows.count {
                let document = try existing(try rows.text(row, 0))
                documents.insert(document.name)
                try latestSnapshot(of: document)?.state.forEach(note)
                // From the first op kept, in pages.
                let first = try connection.query("SELECT min(position) FROM ops WHERE document = $1") {
                    $0.append(document.id)
                }
                guard !first.isNull(0, 0) else { continue }
                var after = UInt64(clamping: try first.int64(0, 0) - 1)
                while true {
                    let page = try ops(of: document, after: after, limit: 10_000)
                    for stored in page { note(stored.op) }
                    guard let last = page.last else { break }
                    after = last.position
                }
            }
            return (documents, blobs)
        }
    }

    /// Removes the blobs no document refers to, except those uploaded to
    /// some document at or after `graceStart` (milliseconds): a client
    /// uploads a blob just before it places it. Also detaches blobs from
    /// documents that no longer exist, once past the grace period.
    ///
    /// Safe while nodes serve: the references are read in one consistent
    /// view; a blob goes only if, once its row is locked, no document had
    /// it uploaded within the grace period, and a node finishing an upload
    /// of it locks that row too, so it attaches the blob before, or stores
    /// it anew after. An op committed between the two refers to a blob
    /// uploaded just before it, which is in grace.
    public func collectBlobs(graceStart: Int64) throws(PostgresError) -> BlobCollection {
        let references = try blobReferences()
        return try connection.transaction { () throws(PostgresError) -> BlobCollection in
            let stale = try connection.query("SELECT DISTINCT document FROM blob_documents WHERE uploaded_at < $1") {
                $0.append(graceStart)
            }
            for row in 0..<stale.count {
                let document = try stale.text(row, 0)
                guard !references.documents.contains(document) else { continue }
                try connection.query("DELETE FROM blob_documents WHERE document = $1 AND uploaded_at < $2") {
                    $0.append(document)
                    $0.append(graceStart)
                }
            }
            let blobs = try connection.query(
                """
                SELECT b.hash, b.size, coalesce(max(d.uploaded_at), b.created_at)
                FROM blobs b LEFT JOIN blob_documents d ON d.hash = b.hash GROUP BY b.hash
                """)
            var result = BlobCollection(removed: 0, removedBytes: 0, inGrace: 0, kept: 0)
            for row in 0..<blobs.count {
                let hash = BlobHash(bytes: try blobs.bytes(row, 0))
                if references.blobs.contains(hash) {
                    result.kept += 1
                    continue
                }
                guard try blobs.int64(row, 2) < graceStart else {
                    result.inGrace += 1
                    continue
                }
                // Locked, then looked at again in a statement of its own
                // (it sees what committed meanwhile): a node finishing an
                // upload of it locks the row too (`finishUpload`), so it
                // attaches the blob before this looks, or stores it anew after.
                let locked = try connection.query("SELECT upload FROM blobs WHERE hash = $1 FOR UPDATE") {
                    $0.append(bytes: hash.bytes)
                }
                let fresh = try connection.query(
                    "SELECT 1 FROM blob_documents WHERE hash = $1 AND uploaded_at >= $2 LIMIT 1"
                ) {
                    $0.append(bytes: hash.bytes)
                    $0.append(graceStart)
                }
                guard locked.count == 1, fresh.count == 0 else {
                    result.inGrace += locked.count
                    continue
                }
                try connection.query("DELETE FROM blobs WHERE hash = $1") { $0.append(bytes: hash.bytes) }
                // Its chunks go with its upload (ON DELETE CASCADE).
                let upload = try locked.int64(0, 0)
                let removed = try connection.query("DELETE FROM uploads WHERE id = $1 RETURNING 1") {
                    $0.append(upload)
                }
                if removed.count == 1 {
                    result.removed += 1
                    result.removedBytes += try blobs.int64(row, 1)
                }
            }
            return result
        }
    }
}
