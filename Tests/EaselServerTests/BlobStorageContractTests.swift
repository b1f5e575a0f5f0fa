import Crypto
import EaselModel
import EaselPostgres
import EaselProtocol
import EaselStore
import EaselSync
import EaselTestSupport
import Foundation
import Testing

@testable import EaselServer

/// What every storage behind the blob port must do, run against each
/// adapter: SQLite's on a real file, PostgreSQL's on a private server.
/// Another adapter joins the list and must pass unchanged.
@Suite("The blob storage contract", .serialized)
struct BlobStorageContractTests {
    enum Adapter: String, CaseIterable {
        case sqlite, postgres
    }

    func storage(_ adapter: Adapter) throws -> (storage: any BlobStorage, done: () -> Void) {
        switch adapter {
        case .sqlite:
            let storage = try StoreBlobStorage(besideDatabase: temporaryDatabase(), durability: .full)
            return (storage, { storage.drain() })
        case .postgres:
            let server = try LocalPostgres()
            _ = try PostgresStore(url: server.url)
            let storage = StoreBlobStorage(rows: try PostgresBlobRows(url: server.url, now: 0))
            return (
                storage,
                {
                    storage.drain()
                    server.stop()
                }
            )
        }
    }

    func answer<T: Sendable>(_ call: (@escaping @Sendable (Result<T, StorageFailure>) -> Void) -> Void) throws
        -> Result<T, StorageFailure>
    {
        try storageAnswer(call)
    }

    static let now = Timestamp(milliseconds: 1_000)
    static let bytes: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<300_000).map { UInt8($0 % 251) }
    static var hash: BlobHash { BlobHash(bytes: Array(SHA256.hash(data: bytes))) }

    /// Uploads `bytes` in chunks under `handle` and finishes it as `hash`.
    func upload(
        _ storage: any BlobStorage, _ handle: UInt64, as hash: BlobHash = Self.hash, to document: DocumentName
    ) throws -> Result<UploadFinish, StorageFailure> {
        let upload = UploadHandle(rawValue: handle)
        // Appends are made before the begin is heard of: the port keeps their order.
        storage.beginUpload(upload, at: Self.now) { _ in }
        for (sequence, start) in stride(from: 0, to: Self.bytes.count, by: BlobStore.chunkLimit).enumerated() {
            let chunk = Array(Self.bytes[start..<min(start + BlobStore.chunkLimit, Self.bytes.count)])
            let written = try answer { storage.appendChunk(chunk, to: upload, sequence: sequence, completion: $0) }
            #expect(throws: Never.self) { try written.get() }
        }
        return try answer {
            storage.finishUpload(
                upload, as: hash, size: Int64(Self.bytes.count), type: .png, document: document, at: Self.now,
                completion: $0)
        }
    }

    @Test(arguments: Adapter.allCases)
    func anUploadIsFoundOnlyByItsDocumentAndReadsBackChunkByChunk(_ adapter: Adapter) throws {
        let (storage, done) = try self.storage(adapter)
        defer { done() }
        let pics = try DocumentName("pics")
        let other = try DocumentName("other")
        #expect(try upload(storage, 1, to: pics).get() == .created)
        #expect(try answer { storage.locate(Self.hash, in: other, completion: $0) }.get() == nil)
        let stored = try #require(try answer { storage.locate(Self.hash, in: pics, completion: $0) }.get())
        #expect(stored.size == Int64(Self.bytes.count) && stored.type == .png && stored.chunks == 2)
        var read: [UInt8] = []
        for sequence in 0..<stored.chunks {
            read += try #require(try answer { storage.readChunk(sequence, of: stored, completion: $0) }.get())
        }
        #expect(read == Self.bytes)
    }

    @Test(arguments: Adapter.allCases)
    func theSameBytesAgainAreAlreadyStoredAndAnotherDocumentMayThenReadThem(_ adapter: Adapter) throws {
        let (storage, done) = try self.storage(adapter)
        defer { done() }
        #expect(try upload(storage, 1, to: try DocumentName("pics")).get() == .created)
        let other = try DocumentName("other")
        #expect(try upload(storage, 2, to: other).get() == .alreadyStored)
        #expect(try answer { storage.locate(Self.hash, in: other, completion: $0) }.get() != nil)
    }

    @Test(arguments: Adapter.allCases)
    func bytesThatHashToAnotherNameAreNotStoredAndTheFinishSaysTheirHash(_ adapter: Adapter) throws {
        let (storage, done) = try self.storage(adapter)
        defer { done() }
        let wrong = BlobHash(bytes: [UInt8](repeating: 7, count: 32))
        let pics = try DocumentName("pics")
        #expect(try upload(storage, 1, as: wrong, to: pics).get() == .wrongHash(Self.hash))
        #expect(try answer { storage.locate(wrong, in: pics, completion: $0) }.get() == nil)
        #expect(try answer { storage.locate(Self.hash, in: pics, completion: $0) }.get() == nil)
    }

    @Test(arguments: Adapter.allCases)
    func anAbandonedUploadLeavesNothingAndItsHandleCannotFinish(_ adapter: Adapter) throws {
        let (storage, done) = try self.storage(adapter)
        defer { done() }
        let upload = UploadHandle(rawValue: 9)
        let pics = try DocumentName("pics")
        storage.beginUpload(upload, at: Self.now) { _ in }
        _ = try answer { storage.appendChunk(Array(Self.bytes.prefix(100)), to: upload, sequence: 0, completion: $0) }
        storage.abandonUpload(upload)
        let finished = try answer {
            storage.finishUpload(
                upload, as: Self.hash, size: 100, type: .png, document: pics, at: Self.now,
                completion: $0)
        }
        #expect(throws: StorageFailure.self) { try finished.get() }
    }

    @Test(
        "a finish queued behind a chunk that failed stores nothing: the blob would name bytes that are not all there",
        arguments: Adapter.allCases)
    func anUploadWhoseChunkFailedCannotFinish(_ adapter: Adapter) throws {
        let (storage, done) = try self.storage(adapter)
        defer { done() }
        let upload = UploadHandle(rawValue: 10)
        let pics = try DocumentName("pics")
        let first = Array(Self.bytes.prefix(BlobStore.chunkLimit))
        // Over the chunk limit: the store refuses it, as it would a chunk
        // the disk could not take.
        let refused = [UInt8](repeating: 7, count: BlobStore.chunkLimit + 1)
        let whole = first + refused
        storage.beginUpload(upload, at: Self.now) { _ in }
        storage.appendChunk(first, to: upload, sequence: 0) { _ in }
        storage.appendChunk(refused, to: upload, sequence: 1) { _ in }
        // The server queues the finish as the body ends, before it hears
        // how the chunks went.
        let finished = try answer {
            storage.finishUpload(
                upload, as: BlobHash(bytes: Array(SHA256.hash(data: whole))), size: Int64(whole.count), type: .png,
                document: pics, at: Self.now, completion: $0)
        }
        #expect(throws: StorageFailure.self) { try finished.get() }
        let hash = BlobHash(bytes: Array(SHA256.hash(data: whole)))
        #expect(try answer { storage.locate(hash, in: pics, completion: $0) }.get() == nil)
    }
}
