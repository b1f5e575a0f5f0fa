import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

@testable import EaselStore

@Suite("Blob store")
struct BlobStoreTests {
    let file = TemporaryDatabase()

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// Uploads bytes in chunks of at most the store's limit; how it ended.
    @discardableResult
    static func upload(
        _ bytes: [UInt8], as hash: BlobHash, to document: String, in store: OpStore, type: BlobType = .png
    ) throws -> BlobStored {
        let upload = try store.beginUpload(at: 1)
        var sequence = 0
        for start in stride(from: 0, to: bytes.count, by: OpStore.blobChunkLimit) {
            try store.appendChunk(
                Array(bytes[start..<min(start + OpStore.blobChunkLimit, bytes.count)]), to: upload, sequence: sequence)
            sequence += 1
        }
        return try store.finishUpload(
            upload, as: hash, size: Int64(bytes.count), type: type, document: document, at: 2)
    }

    static func read(_ hash: BlobHash, from store: OpStore) throws -> (bytes: [UInt8], chunks: Int) {
        var bytes: [UInt8] = []
        var chunks = 0
        try store.readBlob(hash) {
            bytes += $0
            chunks += 1
        }
        return (bytes, chunks)
    }

    static func chunkRows(_ store: OpStore) throws -> Int64 {
        let statement = try store.database.statement("SELECT count(*) FROM blob_chunks")
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(0)
    }

    let hash = BlobHash(bytes: (0..<32).map { UInt8($0) })

    @Test("a blob's bytes come back as stored, chunk by chunk, and are stored once however many documents use them")
    func blobsAreStoredOnce() throws {
        let store = try OpStore(path: file.path)
        let bytes = Self.bytes(600_000, seed: 1)
        #expect(try Self.upload(bytes, as: hash, to: "a", in: store) == .created)
        #expect(try Self.upload(bytes, as: hash, to: "b", in: store) == .alreadyStored)
        #expect(try Self.upload(bytes, as: hash, to: "a", in: store) == .alreadyStored, "again, to the same document")
        let read = try Self.read(hash, from: store)
        #expect(read.bytes == bytes && read.chunks == 3)
        #expect(try store.blobTotals().count == 1 && store.blobTotals().bytes == 600_000)
        #expect(try Self.chunkRows(store) == 3, "the repeated uploads' chunks were dropped")
        #expect(try store.documents(ofBlob: hash) == ["a", "b"])
        #expect(try store.blobInfo(hash, document: "b") == BlobInfo(hash: hash, size: 600_000, type: .png))
    }

    @Test("a blob is known only to the documents it was uploaded to")
    func blobsBelongToTheirDocuments() throws {
        let store = try OpStore(path: file.path)
        try Self.upload(Self.bytes(10, seed: 2), as: hash, to: "a", in: store)
        #expect(try store.blobInfo(hash, document: "a") != nil)
        #expect(try store.blobInfo(hash, document: "elsewhere") == nil)
        #expect(try store.blobInfo(BlobHash(bytes: [UInt8](repeating: 9, count: 32)), document: "a") == nil)
        #expect(throws: StoreError.self) { try Self.read(BlobHash(bytes: [UInt8](repeating: 9, count: 32)), from: store) }
    }

    @Test("an upload that never finishes leaves no blob, and its chunks go when abandoned uploads are removed")
    func unfinishedUploadsLeaveNoBlob() throws {
        do {
            let store = try OpStore(path: file.path)
            let upload = try store.beginUpload(at: 1)
            try store.appendChunk(Self.bytes(1000, seed: 3), to: upload, sequence: 0)
            // The process stops here: the store closes with the upload open.
        }
        let store = try OpStore(path: file.path)
        #expect(try store.blobInfo(hash, document: "a") == nil)
        #expect(try store.blobTotals().count == 0)
        #expect(try store.removeAbandonedUploads() == 1)
        #expect(try Self.chunkRows(store) == 0)
        #expect(try Self.upload(Self.bytes(1000, seed: 3), as: hash, to: "a", in: store) == .created, "the retry")
        #expect(try store.removeAbandonedUploads() == 0, "a finished upload is not abandoned")
    }

    @Test("an abandoned upload's chunks are dropped at once")
    func abandoningDropsChunks() throws {
        let store = try OpStore(path: file.path)
        let upload = try store.beginUpload(at: 1)
        try store.appendChunk([1, 2, 3], to: upload, sequence: 0)
        try store.abandonUpload(upload)
        #expect(try Self.chunkRows(store) == 0)
    }

    @Test("a chunk over the limit is refused and changes nothing")
    func oversizedChunksAreRefused() throws {
        let store = try OpStore(path: file.path)
        let upload = try store.beginUpload(at: 1)
        #expect(throws: StoreError.self) {
            try store.appendChunk([UInt8](repeating: 0, count: OpStore.blobChunkLimit + 1), to: upload, sequence: 0)
        }
        #expect(try Self.chunkRows(store) == 0)
    }

    @Test("the type is sniffed from the bytes: PNG, JPEG, GIF and WebP; SVG, text and truncated signatures are none")
    func typesAreSniffedFromBytes() {
        #expect(BlobType(sniffing: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]) == .png)
        #expect(BlobType(sniffing: [0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(BlobType(sniffing: Array("GIF89a....".utf8)) == .gif)
        #expect(BlobType(sniffing: Array("GIF87a".utf8)) == .gif)
        #expect(BlobType(sniffing: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(BlobType(sniffing: Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)) == nil)
        #expect(BlobType(sniffing: Array("hello, world".utf8)) == nil)
        #expect(BlobType(sniffing: [0x89, 0x50, 0x4E]) == nil)
        #expect(BlobType(sniffing: Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)) == nil)
        #expect(BlobType(sniffing: []) == nil)
    }
}

@Suite("Blob store: backups")
struct BlobBackupTests {
    let file = TemporaryDatabase()

    @Test("a backup carries blobs, and restoring a document brings back its blobs and no other document's")
    func backupsCarryBlobs() throws {
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        let mine = BlobHash(bytes: [UInt8](repeating: 1, count: 32))
        let theirs = BlobHash(bytes: [UInt8](repeating: 2, count: 32))
        let bytes = BlobStoreTests.bytes(300_000, seed: 4)
        try BlobStoreTests.upload(bytes, as: mine, to: "board", in: store, type: .jpeg)
        try BlobStoreTests.upload([1, 2, 3], as: theirs, to: "other", in: store)
        let backupPath = file.folder.appendingPathComponent("backup.db").path
        try store.backup(to: backupPath)

        let fresh = TemporaryDatabase()
        let restored = try OpStore(path: fresh.path)
        _ = try restored.restore("board", from: backupPath, at: 5)
        #expect(try restored.blobs(ofDocument: "board") == [BlobInfo(hash: mine, size: 300_000, type: .jpeg)])
        #expect(try BlobStoreTests.read(mine, from: restored).bytes == bytes)
        #expect(try restored.blobInfo(theirs, document: "other") == nil, "only the restored document's blobs")
        _ = try restored.restore("board", from: backupPath, at: 6)
        #expect(try restored.blobTotals().count == 1, "restoring again stores nothing twice")
    }
}

@Suite("Blob store: garbage collection")
struct BlobCollectionTests {
    let file = TemporaryDatabase()
    static let replica = ReplicaID(rawValue: 0xD1)

    static func hash(_ byte: UInt8) -> BlobHash { BlobHash(bytes: [UInt8](repeating: byte, count: 32)) }

    /// An image placed with the blob, as op `counter`.
    static func image(_ hash: BlobHash, counter: UInt64, position: UInt64) -> StoredOp {
        let id = OpID(counter: counter, replica: replica)
        return StoredOp(
            position: position,
            op: Op(id: id, transaction: TransactionID(id), action: .create(.image, [.blob(hash), .width(10)])),
            author: "ada", receivedAt: 1)
    }

    @Test("collection keeps every referenced blob, keeps unreferenced ones in their grace period, removes the rest")
    func collectionKeepsWhatIsReferencedOrFresh() throws {
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        // Placed, in the log; placed then replaced (still in the retained log); never placed, old;
        // never placed, fresh.
        let upload = { (byte: UInt8, at: Int64) in
            let id = try store.beginUpload(at: at)
            try store.appendChunk([byte, byte], to: id, sequence: 0)
            _ = try store.finishUpload(id, as: Self.hash(byte), size: 2, type: .png, document: "board", at: at)
        }
        try upload(1, 1_000)
        try upload(2, 1_000)
        try upload(3, 1_000)
        try upload(4, 9_000)
        let placed = Self.image(Self.hash(1), counter: 1, position: 1)
        let replaced = StoredOp(
            position: 2,
            op: Op(
                id: OpID(counter: 2, replica: Self.replica), transaction: TransactionID(OpID(counter: 2, replica: Self.replica)),
                action: .set(EntityID(placed.op.id), .blob(Self.hash(2)))),
            author: "ada", receivedAt: 1)
        try store.append([placed, replaced], to: "board")
        let result = try store.collectBlobs(graceStart: 5_000)
        #expect(result == BlobCollection(removed: 1, removedBytes: 2, inGrace: 1, kept: 2))
        #expect(try store.blobs(ofDocument: "board").map(\.hash) == [Self.hash(1), Self.hash(2), Self.hash(4)])
        #expect(try BlobStoreTests.chunkRows(store) == 3, "the removed blob's bytes went too")
        #expect(try store.collectBlobs(graceStart: 10_000).removed == 1, "past its grace, the fresh one goes")
    }

    @Test("a document's background image keeps its blob; the zero hash of no background refers to nothing")
    func backgroundReferencesKeepBlobs() throws {
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        let id = try store.beginUpload(at: 1)
        try store.appendChunk([8], to: id, sequence: 0)
        _ = try store.finishUpload(id, as: Self.hash(8), size: 1, type: .webp, document: "board", at: 1)
        let stamp = { (counter: UInt64) in OpID(counter: counter, replica: Self.replica) }
        let background = [
            StoredOp(
                position: 1, op: Op(id: stamp(1), transaction: TransactionID(stamp(1)), action: .set(.document, .blob(Self.hash(8)))),
                author: "ada", receivedAt: 1),
            StoredOp(
                position: 2, op: Op(id: stamp(2), transaction: TransactionID(stamp(2)), action: .set(.document, .blob(.none))),
                author: "ada", receivedAt: 1),
        ]
        try store.append(background, to: "board")
        #expect(try store.blobReferences(of: "board") == [Self.hash(8)], "kept: undo can bring the background back")
        #expect(try store.collectBlobs(graceStart: 100).kept == 1)
    }

    @Test("a blob referenced only by a compacted snapshot's state is kept")
    func snapshotReferencesKeepBlobs() throws {
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        let id = try store.beginUpload(at: 1)
        try store.appendChunk([7], to: id, sequence: 0)
        _ = try store.finishUpload(id, as: Self.hash(7), size: 1, type: .gif, document: "board", at: 1)
        try store.append([Self.image(Self.hash(7), counter: 1, position: 1)], to: "board")
        _ = try store.snapshot("board", at: 2)
        _ = try store.compact("board")
        #expect(try store.ops(of: "board", after: 0).isEmpty)
        #expect(try store.collectBlobs(graceStart: 100).kept == 1)
    }
}
