import EaselModel
import EaselProtocol
import EaselTestSupport
import Foundation
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
        _ bytes: [UInt8], as hash: BlobHash, to document: String, in store: BlobStore, type: BlobType = .png
    ) throws -> BlobStored {
        let upload = try store.beginUpload(at: 1)
        var sequence = 0
        for start in stride(from: 0, to: bytes.count, by: BlobStore.chunkLimit) {
            try store.appendChunk(
                Array(bytes[start..<min(start + BlobStore.chunkLimit, bytes.count)]), to: upload, sequence: sequence)
            sequence += 1
        }
        return try store.finishUpload(
            upload, as: hash, size: Int64(bytes.count), type: type, document: document, at: 2)
    }

    static func read(_ hash: BlobHash, from store: BlobStore) throws -> (bytes: [UInt8], chunks: Int) {
        var bytes: [UInt8] = []
        var chunks = 0
        try store.readBlob(hash) {
            bytes += $0
            chunks += 1
        }
        return (bytes, chunks)
    }

    let hash = BlobHash(bytes: (0..<32).map { UInt8($0) })

    @Test("a blob's bytes come back as stored, chunk by chunk, and are stored once however many documents use them")
    func blobsAreStoredOnce() throws {
        let store = try BlobStore(besideDatabase: file.path)
        let bytes = Self.bytes(600_000, seed: 1)
        #expect(try Self.upload(bytes, as: hash, to: "a", in: store) == .created)
        #expect(try Self.upload(bytes, as: hash, to: "b", in: store) == .alreadyStored)
        #expect(try Self.upload(bytes, as: hash, to: "a", in: store) == .alreadyStored, "again, to the same document")
        let read = try Self.read(hash, from: store)
        #expect(read.bytes == bytes && read.chunks == 3)
        #expect(try store.blobTotals().count == 1 && store.blobTotals().bytes == 600_000)
        #expect(try store.chunkCount() == 3, "the repeated uploads' chunks were dropped")
        #expect(try store.documents(ofBlob: hash) == ["a", "b"])
        #expect(try store.blobInfo(hash, document: "b") == BlobInfo(hash: hash, size: 600_000, type: .png))
    }

    @Test("a blob is known only to the documents it was uploaded to")
    func blobsBelongToTheirDocuments() throws {
        let store = try BlobStore(besideDatabase: file.path)
        try Self.upload(Self.bytes(10, seed: 2), as: hash, to: "a", in: store)
        #expect(try store.blobInfo(hash, document: "a") != nil)
        #expect(try store.blobInfo(hash, document: "elsewhere") == nil)
        #expect(try store.blobInfo(BlobHash(bytes: [UInt8](repeating: 9, count: 32)), document: "a") == nil)
        #expect(throws: StoreError.self) { try Self.read(BlobHash(bytes: [UInt8](repeating: 9, count: 32)), from: store) }
    }

    @Test("an upload that never finishes leaves no blob, and its chunks go when abandoned uploads are removed")
    func unfinishedUploadsLeaveNoBlob() throws {
        do {
            let store = try BlobStore(besideDatabase: file.path)
            let upload = try store.beginUpload(at: 1)
            try store.appendChunk(Self.bytes(1000, seed: 3), to: upload, sequence: 0)
            // The process stops here: the store closes with the upload open.
        }
        let store = try BlobStore(besideDatabase: file.path)
        #expect(try store.blobInfo(hash, document: "a") == nil)
        #expect(try store.blobTotals().count == 0)
        #expect(try store.removeAbandonedUploads() == 1)
        #expect(try store.chunkCount() == 0)
        #expect(try Self.upload(Self.bytes(1000, seed: 3), as: hash, to: "a", in: store) == .created, "the retry")
        #expect(try store.removeAbandonedUploads() == 0, "a finished upload is not abandoned")
    }

    @Test("an abandoned upload's chunks are dropped at once")
    func abandoningDropsChunks() throws {
        let store = try BlobStore(besideDatabase: file.path)
        let upload = try store.beginUpload(at: 1)
        try store.appendChunk([1, 2, 3], to: upload, sequence: 0)
        try store.abandonUpload(upload)
        #expect(try store.chunkCount() == 0)
    }

    @Test("a chunk over the limit is refused and changes nothing")
    func oversizedChunksAreRefused() throws {
        let store = try BlobStore(besideDatabase: file.path)
        let upload = try store.beginUpload(at: 1)
        #expect(throws: StoreError.self) {
            try store.appendChunk([UInt8](repeating: 0, count: BlobStore.chunkLimit + 1), to: upload, sequence: 0)
        }
        #expect(try store.chunkCount() == 0)
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
        let blobs = try BlobStore(besideDatabase: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        let mine = BlobHash(bytes: [UInt8](repeating: 1, count: 32))
        let theirs = BlobHash(bytes: [UInt8](repeating: 2, count: 32))
        let bytes = BlobStoreTests.bytes(300_000, seed: 4)
        try BlobStoreTests.upload(bytes, as: mine, to: "board", in: blobs, type: .jpeg)
        try BlobStoreTests.upload([1, 2, 3], as: theirs, to: "other", in: blobs)
        let backupPath = file.folder.appendingPathComponent("backup.db").path
        try store.backup(to: backupPath)

        let fresh = TemporaryDatabase()
        let restored = try OpStore(path: fresh.path)
        _ = try restored.restore("board", from: backupPath, at: 5)
        let restoredBlobs = try BlobStore(besideDatabase: fresh.path)
        #expect(try restoredBlobs.blobs(ofDocument: "board") == [BlobInfo(hash: mine, size: 300_000, type: .jpeg)])
        #expect(try BlobStoreTests.read(mine, from: restoredBlobs).bytes == bytes)
        #expect(try restoredBlobs.blobInfo(theirs, document: "other") == nil, "only the restored document's blobs")
        _ = try restored.restore("board", from: backupPath, at: 6)
        #expect(try restoredBlobs.blobTotals().count == 1, "restoring again stores nothing twice")
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
        let blobs = try BlobStore(besideDatabase: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        // Placed, in the log; placed then replaced (still in the retained log); never placed, old;
        // never placed, fresh.
        let upload = { (byte: UInt8, at: Int64) in
            let id = try blobs.beginUpload(at: at)
            try blobs.appendChunk([byte, byte], to: id, sequence: 0)
            _ = try blobs.finishUpload(id, as: Self.hash(byte), size: 2, type: .png, document: "board", at: at)
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
        let result = try blobs.collect(referencedBy: store, graceStart: 5_000)
        #expect(result == BlobCollection(removed: 1, removedBytes: 2, inGrace: 1, kept: 2))
        #expect(try blobs.blobs(ofDocument: "board").map(\.hash) == [Self.hash(1), Self.hash(2), Self.hash(4)])
        #expect(try blobs.chunkCount() == 3, "the removed blob's bytes went too")
        #expect(try blobs.collect(referencedBy: store, graceStart: 10_000).removed == 1, "past its grace, the fresh one goes")
    }

    @Test("a document's background image keeps its blob; the zero hash of no background refers to nothing")
    func backgroundReferencesKeepBlobs() throws {
        let store = try OpStore(path: file.path)
        let blobs = try BlobStore(besideDatabase: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        let id = try blobs.beginUpload(at: 1)
        try blobs.appendChunk([8], to: id, sequence: 0)
        _ = try blobs.finishUpload(id, as: Self.hash(8), size: 1, type: .webp, document: "board", at: 1)
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
        #expect(try blobs.collect(referencedBy: store, graceStart: 100).kept == 1)
    }

    @Test("a blob referenced only by a compacted snapshot's state is kept")
    func snapshotReferencesKeepBlobs() throws {
        let store = try OpStore(path: file.path)
        let blobs = try BlobStore(besideDatabase: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        let id = try blobs.beginUpload(at: 1)
        try blobs.appendChunk([7], to: id, sequence: 0)
        _ = try blobs.finishUpload(id, as: Self.hash(7), size: 1, type: .gif, document: "board", at: 1)
        try store.append([Self.image(Self.hash(7), counter: 1, position: 1)], to: "board")
        _ = try store.snapshot("board", at: 2)
        _ = try store.compact("board")
        #expect(try store.ops(of: "board", after: 0).isEmpty)
        #expect(try blobs.collect(referencedBy: store, graceStart: 100).kept == 1)
    }
}

@Suite("Blob store: a file of its own")
struct BlobFileTests {
    let file = TemporaryDatabase()

    @Test("an op commits while an upload holds the blob file's write lock: blobs never make op commits wait")
    func blobWritesNeverHoldTheOpLogsLock() throws {
        let store = try OpStore(path: file.path, busyTimeoutMilliseconds: 0)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        let blobs = try BlobStore(besideDatabase: file.path)
        let upload = try blobs.beginUpload(at: 1)
        let op = BlobCollectionTests.image(BlobCollectionTests.hash(1), counter: 1, position: 1)
        try blobs.database.transaction { () throws(StoreError) in
            try blobs.appendChunk([1, 2, 3], to: upload, sequence: 0)
            // With no busy timeout, a shared lock would fail this at once.
            try store.append([op], to: "board")
        }
        #expect(try store.head(of: "board") == 1)
        #expect(try blobs.chunkCount(of: upload) == 1)
    }

    /// A database as Easel's schema 3 left it, holding one 2-byte PNG blob
    /// (bytes 1, 2) under upload 7, uploaded to "board".
    func makeVersion3Database(holding hash: BlobHash) throws {
        let database = try Database(path: file.path)
        _ = try database.pragma("journal_mode = WAL")
        try database.transaction { () throws(StoreError) in
            for migration in Schema.opLog.migrations.prefix(3) { try database.execute(migration) }
            try database.execute("PRAGMA user_version = 3")
            try database.execute(
                """
                INSERT INTO uploads (id, started_at) VALUES (7, 1);
                INSERT INTO blob_chunks (upload, sequence, bytes) VALUES (7, 0, x'0102');
                INSERT INTO blobs (hash, upload, size, type, created_at) VALUES (x'\(hash)', 7, 2, 'image/png', 1);
                INSERT INTO blob_documents (hash, document, uploaded_at) VALUES (x'\(hash)', 'board', 1);
                """)
        }
    }

    @Test("a version-3 database's blobs move into the blob file when it opens, and tools read them before that")
    func version3BlobsMoveToTheBlobFile() throws {
        let hash = BlobCollectionTests.hash(5)
        try makeVersion3Database(holding: hash)
        let beforeMigration = try #require(try BlobStore.reading(besideDatabase: file.path))
        #expect(try beforeMigration.blobInfo(hash, document: "board")?.size == 2)

        _ = try OpStore(path: file.path)
        let blobs = try BlobStore(besideDatabase: file.path)
        #expect(try blobs.blobInfo(hash, document: "board") == BlobInfo(hash: hash, size: 2, type: .png))
        #expect(try BlobStoreTests.read(hash, from: blobs).bytes == [1, 2])
        let opLog = try Database(path: file.path, readOnly: true)
        #expect(try opLog.pragma("user_version") == "4")
        let tables = try opLog.statement("SELECT count(*) FROM sqlite_master WHERE name IN ('blobs', 'uploads')")
        _ = try tables.step()
        #expect(tables.int64(0) == 0, "the op log's file keeps no blob tables")
        _ = try OpStore(path: file.path)
        #expect(try blobs.blobTotals().count == 1, "opening again moves nothing twice")
    }

    @Test("moving a version-3 database's blobs never mixes them with uploads the blob file already holds")
    func version3BlobsGetUploadsOfTheirOwn() throws {
        let theirs = BlobCollectionTests.hash(6)
        let ours = BlobCollectionTests.hash(5)
        // The blob file beside it already has an upload numbered 7.
        do {
            let blobs = try BlobStore(besideDatabase: file.path)
            let upload = try blobs.beginUpload(at: 1)
            #expect(upload.rawValue == 1)
            for _ in 2...7 { _ = try blobs.beginUpload(at: 1) }
            try blobs.appendChunk([9, 9, 9], to: UploadID(rawValue: 7), sequence: 0)
            _ = try blobs.finishUpload(UploadID(rawValue: 7), as: theirs, size: 3, type: .gif, document: "other", at: 1)
        }
        try makeVersion3Database(holding: ours)
        _ = try OpStore(path: file.path)
        let blobs = try BlobStore(besideDatabase: file.path)
        #expect(try BlobStoreTests.read(ours, from: blobs).bytes == [1, 2])
        #expect(try BlobStoreTests.read(theirs, from: blobs).bytes == [9, 9, 9])
        #expect(try blobs.documents(ofBlob: ours) == ["board"])
    }

    @Test("a database with no blob file and no blob tables has no blobs to read, and reading creates nothing")
    func readingWithoutABlobFileFindsNone() throws {
        _ = try OpStore(path: file.path)
        #expect(try BlobStore.reading(besideDatabase: file.path) == nil)
        #expect(!FileManager.default.fileExists(atPath: BlobStore.path(besideDatabase: file.path)))
    }

    @Test("restoring from a backup whose blob file is missing is refused, naming the file, and changes nothing")
    func restoreWithoutTheBlobFileIsRefused() throws {
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        try store.append([BlobCollectionTests.image(BlobCollectionTests.hash(1), counter: 1, position: 1)], to: "board")
        let backupPath = file.folder.appendingPathComponent("backup.db").path
        try store.backup(to: backupPath)
        try FileManager.default.removeItem(atPath: BlobStore.path(besideDatabase: backupPath))

        let fresh = TemporaryDatabase()
        let restored = try OpStore(path: fresh.path)
        #expect {
            _ = try restored.restore("board", from: backupPath, at: 5)
        } throws: { error in
            (error as? StoreError)?.reason == .missingFile
                && "\(error)".contains(BlobStore.path(besideDatabase: backupPath))
        }
        #expect(try restored.documentInfo("board") == nil)
    }
}

@Suite("Blob store: grace periods")
struct BlobGraceTests {
    let file = TemporaryDatabase()

    func upload(_ byte: UInt8, to document: String, at time: Int64, in blobs: BlobStore) throws {
        let id = try blobs.beginUpload(at: time)
        try blobs.appendChunk([byte], to: id, sequence: 0)
        _ = try blobs.finishUpload(
            id, as: BlobCollectionTests.hash(byte), size: 1, type: .png, document: document, at: time)
    }

    @Test("a blob uploaded to a document with no op yet stays attached through its grace period, and goes past it")
    func uploadsBeforeTheDocumentKeepTheirAttachment() throws {
        let store = try OpStore(path: file.path)
        let blobs = try BlobStore(besideDatabase: file.path)
        try upload(1, to: "not/yet", at: 1_000, in: blobs)
        #expect(try blobs.collect(referencedBy: store, graceStart: 500).inGrace == 1)
        #expect(try blobs.blobInfo(BlobCollectionTests.hash(1), document: "not/yet") != nil, "still servable")
        #expect(try blobs.collect(referencedBy: store, graceStart: 2_000).removed == 1)
        #expect(try blobs.documents(ofBlob: BlobCollectionTests.hash(1)).isEmpty)
    }

    @Test("uploading a blob again restarts its grace period")
    func uploadingAgainRestartsTheGracePeriod() throws {
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        let blobs = try BlobStore(besideDatabase: file.path)
        try upload(1, to: "board", at: 1_000, in: blobs)
        try upload(1, to: "board", at: 9_000, in: blobs)
        #expect(try blobs.collect(referencedBy: store, graceStart: 5_000) == BlobCollection(removed: 0, removedBytes: 0, inGrace: 1, kept: 0))
        try upload(1, to: "board", at: 3_000, in: blobs)
        #expect(try blobs.collect(referencedBy: store, graceStart: 5_000).inGrace == 1, "an older upload keeps the newer time")
    }
}
