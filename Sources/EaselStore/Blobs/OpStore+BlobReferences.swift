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
    /// them, their rows are copied into the blob file beside it. The copy
    /// and the drop commit in two files, so a crash between them leaves the
    /// rows in both; the next open copies again (rows already there are
    /// kept as they are) and then drops them.
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
            for table in ["uploads", "blob_chunks", "blobs", "blob_documents"] {
                try database.execute("INSERT OR IGNORE INTO moving.\(table) SELECT * FROM main.\(table)")
            }
        }
    }
}
