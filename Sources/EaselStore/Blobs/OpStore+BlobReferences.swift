import EaselModel
import EaselProtocol

extension OpStore {
    /// The blobs a document refers to: in its latest snapshot's state and in
    /// every op of its retained log (undo can bring an old image back).
    public func blobReferences(of name: String) throws(StoreError) -> Set<BlobHash> {
        try readConsistently { () throws(StoreError) in
            var found: Set<BlobHash> = []
            func note(_ op: Op) {
                op.forEachBlob { found.insert($0) }
            }
            if let snapshot = try latestSnapshot(of: name) { snapshot.state.forEach(note) }
            for stored in try ops(of: name, after: 0) { note(stored.op) }
            return found
        }
    }

    /// Every document's name and every blob any of them refers to, from one
    /// read transaction: it keeps no writer waiting.
    public func blobReferences() throws(StoreError) -> (documents: Set<String>, blobs: Set<BlobHash>) {
        try readConsistently { () throws(StoreError) in
            var documents: Set<String> = []
            var blobs: Set<BlobHash> = []
            for summary in try listDocuments() {
                documents.insert(summary.info.name)
                blobs.formUnion(try blobReferences(of: summary.info.name))
            }
            return (documents, blobs)
        }
    }

    /// Version 3 kept the blob tables in this file. Before migration 4 drops
    /// them, each blob the blob file beside it lacks is copied there under
    /// a new upload id (the blob file may hold uploads of its own, say
    /// when an older copy of this file was put back beside it), and every
    /// document a blob was uploaded to comes along. The copy and the drop
    /// commit in two files, so a crash between them leaves the rows in
    /// both; the next open copies only what is still missing, then drops.
    func moveVersion3Blobs() throws(StoreError) {
        guard try Schema.opLog.check(database) == 3 else { return }
        let blobPath = BlobStore.path(besideDatabase: path)
        // Creates the blob file's tables.
        _ = try BlobStore(path: blobPath, durability: durability)
        let attach = try database.statement("ATTACH DATABASE ? AS moving")
        try attach.bind(1, blobPath)
        try attach.step()
        attach.reset()
        defer { try? database.execute("DETACH DATABASE moving") }
        try database.transaction { () throws(StoreError) in
            // Another process may have migrated the file meanwhile.
            guard try Schema.opLog.check(database) == 3 else { return }
            let missing = try database.statement(
                """
                SELECT hash, upload, size, type, created_at FROM main.blobs
                WHERE hash NOT IN (SELECT hash FROM moving.blobs)
                """)
            var blobs: [(hash: [UInt8], upload: Int64, size: Int64, type: String, createdAt: Int64)] = []
            while try missing.step() {
                blobs.append((missing.blob(0), missing.int64(1), missing.int64(2), missing.text(3), missing.int64(4)))
            }
            missing.reset()
            for blob in blobs {
                let upload = try database.statement(
                    "INSERT INTO moving.uploads (started_at) SELECT started_at FROM main.uploads WHERE id = ?")
                try upload.bind(1, blob.upload)
                try upload.step()
                upload.reset()
                let newUpload = database.lastInsertedRow
                let chunks = try database.statement(
                    """
                    INSERT INTO moving.blob_chunks (upload, sequence, bytes)
                    SELECT ?, sequence, bytes FROM main.blob_chunks WHERE upload = ?
                    """)
                try chunks.bind(1, newUpload)
                try chunks.bind(2, blob.upload)
                try chunks.step()
                chunks.reset()
                let row = try database.statement(
                    "INSERT INTO moving.blobs (hash, upload, size, type, created_at) VALUES (?, ?, ?, ?, ?)")
                try row.bind(1, blob.hash)
                try row.bind(2, newUpload)
                try row.bind(3, blob.size)
                try row.bind(4, blob.type)
                try row.bind(5, blob.createdAt)
                try row.step()
                row.reset()
            }
            try database.execute(
                """
                INSERT INTO moving.blob_documents (hash, document, uploaded_at)
                SELECT hash, document, uploaded_at FROM main.blob_documents WHERE true
                ON CONFLICT (hash, document) DO UPDATE SET uploaded_at = max(uploaded_at, excluded.uploaded_at)
                """)
        }
    }
}
