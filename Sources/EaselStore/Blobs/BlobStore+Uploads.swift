import EaselModel
import EaselProtocol

/// A blob's size and type, as stored.
public struct BlobInfo: Hashable, Sendable {
    public var hash: BlobHash
    public var size: Int64
    public var type: BlobType

    public init(hash: BlobHash, size: Int64, type: BlobType) {
        self.hash = hash
        self.size = size
        self.type = type
    }
}

/// An upload in progress: chunks are written under its ID until it
/// finishes or is abandoned.
public struct UploadID: Hashable, Sendable {
    public let rawValue: Int64

    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }
}

/// How a finished upload ended.
public enum BlobStored: Hashable, Sendable {
    /// The bytes are new.
    case created
    /// The blob was already stored (by this or another document): its bytes
    /// are kept, this upload's dropped, and the document added.
    case alreadyStored
}

/// Blobs: bytes stored once per SHA-256, with the documents each was
/// uploaded to. Uploads stream: each chunk commits on its own, so memory
/// and transactions stay small whatever the blob's size, and the blob
/// appears only when `finishUpload` commits the row that names it. Hashing
/// the bytes and sniffing their type is the caller's (the server does both
/// as the bytes arrive); the store trusts what it is told.
extension BlobStore {
    /// The largest chunk `appendChunk` takes: reads and writes of a blob
    /// hold at most this much at a time.
    public static let chunkLimit = 256 * 1024

    public func beginUpload(at now: Int64) throws(StoreError) -> UploadID {
        try database.inTransaction { () throws(StoreError) in
            let statement = try database.statement("INSERT INTO uploads (started_at) VALUES (?)")
            try statement.bind(1, now)
            try statement.step()
            return UploadID(rawValue: database.lastInsertedRow)
        }
    }

    /// Adds the next chunk of an upload (sequence numbers from 0).
    public func appendChunk(_ bytes: [UInt8], to upload: UploadID, sequence: Int) throws(StoreError) {
        guard bytes.count <= Self.chunkLimit else {
            throw StoreError(.outOfRange, "a blob chunk holds at most \(Self.chunkLimit) bytes, not \(bytes.count)")
        }
        try database.inTransaction { () throws(StoreError) in
            let statement = try database.statement(
                "INSERT INTO blob_chunks (upload, sequence, bytes) VALUES (?, ?, ?)")
            try statement.bind(1, upload.rawValue)
            try statement.bind(2, Int64(sequence))
            try statement.bind(3, bytes)
            try statement.step()
        }
    }

    /// Makes an upload's chunks the blob with this hash, attached to the
    /// document, in one transaction. When the blob already exists, this
    /// upload's chunks are dropped and the document is attached to it.
    public func finishUpload(
        _ upload: UploadID, as hash: BlobHash, size: Int64, type: BlobType, document: String, at now: Int64
    ) throws(StoreError) -> BlobStored {
        try database.inTransaction { () throws(StoreError) in
            let exists = try blobRow(hash) != nil
            if exists {
                try deleteUpload(upload)
            } else {
                let statement = try database.statement(
                    "INSERT INTO blobs (hash, upload, size, type, created_at) VALUES (?, ?, ?, ?, ?)")
                try statement.bind(1, hash.bytes)
                try statement.bind(2, upload.rawValue)
                try statement.bind(3, size)
                try statement.bind(4, type.rawValue)
                try statement.bind(5, now)
                try statement.step()
            }
            // Uploading again restarts the grace period: a client uploads
            // before it places, so a blob placed now was uploaded just now.
            let attach = try database.statement(
                """
                INSERT INTO blob_documents (hash, document, uploaded_at) VALUES (?, ?, ?)
                ON CONFLICT (hash, document) DO UPDATE SET uploaded_at = max(uploaded_at, excluded.uploaded_at)
                """)
            try attach.bind(1, hash.bytes)
            try attach.bind(2, document)
            try attach.bind(3, now)
            try attach.step()
            return exists ? .alreadyStored : .created
        }
    }

    /// Runs `body` with every commit synced to disk, whatever the store's
    /// durability: a blob's chunks may commit without syncing, and the
    /// synced commit that makes it a blob makes them durable with it (in
    /// WAL mode a sync covers every frame before it).
    public func syncingFully<T>(_ body: () throws -> T) throws -> T {
        guard durability != .full else { return try body() }
        try database.execute("PRAGMA synchronous = FULL")
        defer { try? database.execute("PRAGMA synchronous = NORMAL") }
        return try body()
    }

    /// Drops an upload that will not finish, and its chunks.
    public func abandonUpload(_ upload: UploadID) throws(StoreError) {
        try database.inTransaction { () throws(StoreError) in try deleteUpload(upload) }
    }

    /// Drops every upload no blob names: what a killed process left. Only
    /// for when no upload is in flight (a server starting); returns how
    /// many uploads were dropped.
    @discardableResult
    public func removeAbandonedUploads() throws(StoreError) -> Int {
        try database.inTransaction { () throws(StoreError) in
            try database.execute("DELETE FROM uploads WHERE id NOT IN (SELECT upload FROM blobs)")
            return database.changes
        }
    }

    /// The blob's size and type when it was uploaded to the document; nil
    /// otherwise (a blob is served only to the documents it was uploaded to).
    public func blobInfo(_ hash: BlobHash, document: String) throws(StoreError) -> BlobInfo? {
        let statement = try database.statement(
            """
            SELECT blobs.size, blobs.type FROM blobs JOIN blob_documents ON blob_documents.hash = blobs.hash
            WHERE blobs.hash = ? AND blob_documents.document = ?
            """)
        defer { statement.reset() }
        try statement.bind(1, hash.bytes)
        try statement.bind(2, document)
        guard try statement.step() else { return nil }
        guard let type = BlobType(rawValue: statement.text(1)) else {
            throw StoreError(.corruptPayload, "blob \(hash) has an unknown type \(statement.text(1))")
        }
        return BlobInfo(hash: hash, size: statement.int64(0), type: type)
    }

    /// The documents a blob was uploaded to, sorted.
    public func documents(ofBlob hash: BlobHash) throws(StoreError) -> [String] {
        let statement = try database.statement("SELECT document FROM blob_documents WHERE hash = ? ORDER BY document")
        defer { statement.reset() }
        try statement.bind(1, hash.bytes)
        var documents: [String] = []
        while try statement.step() { documents.append(statement.text(0)) }
        return documents
    }

    /// Hands a stored blob's bytes to `body` chunk by chunk, all from one
    /// consistent read. Throws `.outOfRange` when there is no such blob, or
    /// what `body` throws.
    public func readBlob(_ hash: BlobHash, _ body: ([UInt8]) throws -> Void) throws {
        var failure: (any Error)?
        try database.readConsistently { () throws(StoreError) in
            guard let upload = try blobRow(hash) else { throw StoreError(.outOfRange, "no blob \(hash)") }
            let statement = try database.statement("SELECT bytes FROM blob_chunks WHERE upload = ? ORDER BY sequence")
            defer { statement.reset() }
            try statement.bind(1, upload)
            while try statement.step() {
                do {
                    try body(statement.blob(0))
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
    }

    /// The blobs uploaded to a document, by hash.
    public func blobs(ofDocument document: String) throws(StoreError) -> [BlobInfo] {
        let statement = try database.statement(
            """
            SELECT blobs.hash, blobs.size, blobs.type FROM blobs JOIN blob_documents ON blob_documents.hash = blobs.hash
            WHERE blob_documents.document = ? ORDER BY blobs.hash
            """)
        defer { statement.reset() }
        try statement.bind(1, document)
        var found: [BlobInfo] = []
        while try statement.step() {
            guard let type = BlobType(rawValue: statement.text(2)) else {
                throw StoreError(.corruptPayload, "a blob has an unknown type \(statement.text(2))")
            }
            found.append(BlobInfo(hash: BlobHash(bytes: statement.blob(0)), size: statement.int64(1), type: type))
        }
        return found
    }

    /// Copies the blobs another store holds for a document into this one,
    /// chunk by chunk (a restore from a backup).
    public func copyBlobs(of document: String, from other: BlobStore, at now: Int64) throws {
        for blob in try other.blobs(ofDocument: document) {
            let upload = try beginUpload(at: now)
            var sequence = 0
            do {
                try other.readBlob(blob.hash) { chunk in
                    try appendChunk(chunk, to: upload, sequence: sequence)
                    sequence += 1
                }
                _ = try finishUpload(
                    upload, as: blob.hash, size: blob.size, type: blob.type, document: document, at: now)
            } catch {
                try? abandonUpload(upload)
                throw error
            }
        }
    }

    /// How many blobs are stored, and their bytes.
    public func blobTotals() throws(StoreError) -> (count: Int64, bytes: Int64) {
        let statement = try database.statement("SELECT count(*), coalesce(sum(size), 0) FROM blobs")
        defer { statement.reset() }
        _ = try statement.step()
        return (statement.int64(0), statement.int64(1))
    }

    /// How many chunks are stored, a blob's or an upload's in flight or cut
    /// short.
    public func chunkCount() throws(StoreError) -> Int {
        let statement = try database.statement("SELECT count(*) FROM blob_chunks")
        defer { statement.reset() }
        _ = try statement.step()
        return Int(statement.int64(0))
    }

    /// How many chunks an upload wrote.
    public func chunkCount(of upload: UploadID) throws(StoreError) -> Int {
        let statement = try database.statement("SELECT count(*) FROM blob_chunks WHERE upload = ?")
        defer { statement.reset() }
        try statement.bind(1, upload.rawValue)
        _ = try statement.step()
        return Int(statement.int64(0))
    }

    /// One chunk of an upload's bytes (sequence numbers from 0), or nil.
    public func chunk(_ sequence: Int, of upload: UploadID) throws(StoreError) -> [UInt8]? {
        let statement = try database.statement("SELECT bytes FROM blob_chunks WHERE upload = ? AND sequence = ?")
        defer { statement.reset() }
        try statement.bind(1, upload.rawValue)
        try statement.bind(2, Int64(sequence))
        return try statement.step() ? statement.blob(0) : nil
    }

    /// The upload whose chunks hold a stored blob.
    public func blobUpload(_ hash: BlobHash) throws(StoreError) -> UploadID? {
        try blobRow(hash).map { UploadID(rawValue: $0) }
    }

    /// The upload whose chunks hold a stored blob.
    func blobRow(_ hash: BlobHash) throws(StoreError) -> Int64? {
        let statement = try database.statement("SELECT upload FROM blobs WHERE hash = ?")
        defer { statement.reset() }
        try statement.bind(1, hash.bytes)
        return try statement.step() ? statement.int64(0) : nil
    }

    private func deleteUpload(_ upload: UploadID) throws(StoreError) {
        let statement = try database.statement("DELETE FROM uploads WHERE id = ?")
        try statement.bind(1, upload.rawValue)
        try statement.step()
    }
}
