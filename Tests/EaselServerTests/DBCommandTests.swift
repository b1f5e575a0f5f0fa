import EaselModel
import EaselProtocol
import EaselStore
import Foundation
import Testing

/// `easel db gc`, `backup` and `restore` as an operator runs them, on a
/// real database file and its blob file.
@Suite struct DBCommandTests {
    static let replica = ReplicaID(rawValue: 0xDB)
    static let hour: Int64 = 3_600_000

    static func hash(_ byte: UInt8) -> BlobHash { BlobHash(bytes: [UInt8](repeating: byte, count: 32)) }

    static func upload(_ byte: UInt8, bytes: Int, to document: String, at time: Int64, in blobs: BlobStore) throws {
        let id = try blobs.beginUpload(at: time)
        try blobs.appendChunk([UInt8](repeating: byte, count: bytes), to: id, sequence: 0)
        _ = try blobs.finishUpload(id, as: hash(byte), size: Int64(bytes), type: .png, document: document, at: time)
    }

    /// A document whose log places an image with blob 1.
    static func board(at path: String) throws -> OpStore {
        let store = try OpStore(path: path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: 1)
        let id = OpID(counter: 1, replica: replica)
        try store.append(
            [
                StoredOp(
                    position: 1,
                    op: Op(id: id, transaction: TransactionID(id), action: .create(.image, [.blob(hash(1)), .width(10)])),
                    author: "ada", receivedAt: 1)
            ], to: "board")
        return store
    }

    @Test("easel db gc keeps a referenced blob and one uploaded within the default hour, and removes an older unreferenced one")
    func gcKeepsReferencedAndFreshBlobsByDefault() throws {
        let path = temporaryDatabase()
        _ = try Self.board(at: path)
        let blobs = try BlobStore(besideDatabase: path)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try Self.upload(1, bytes: 10, to: "board", at: now - 3 * Self.hour, in: blobs)
        try Self.upload(2, bytes: 20, to: "board", at: now - 2 * Self.hour, in: blobs)
        try Self.upload(3, bytes: 30, to: "board", at: now - Self.hour / 6, in: blobs)

        let run = try runEasel(["db", "gc", "--db", path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("removed 1 blobs (20 bytes); kept 1 referenced and 1 in their grace period"))
        #expect(try blobs.blobInfo(Self.hash(1), document: "board") != nil)
        #expect(try blobs.blobInfo(Self.hash(2), document: "board") == nil)
        #expect(try blobs.blobInfo(Self.hash(3), document: "board") != nil)

        let shorter = try runEasel(["db", "gc", "--db", path, "--grace-seconds", "60"])
        #expect(shorter.output.contains("removed 1 blobs (30 bytes); kept 1 referenced and 0 in their grace period"))
        let negative = try runEasel(["db", "gc", "--db", path, "--grace-seconds=-1"])
        #expect(negative.status != 0 && negative.errors.contains("--grace-seconds cannot be negative"))
    }

    @Test("easel db backup writes the database and its blob file, and restore brings a document's images back")
    func backupAndRestoreCarryBlobs() throws {
        let path = temporaryDatabase()
        _ = try Self.board(at: path)
        try Self.upload(1, bytes: 300_000 / 2, to: "board", at: 1, in: BlobStore(besideDatabase: path))
        let backup = path + ".backup"
        let made = try runEasel(["db", "backup", "--db", path, "--to", backup])
        #expect(made.status == 0, "\(made.errors)")
        #expect(FileManager.default.fileExists(atPath: backup + "-blobs"))
        let again = try runEasel(["db", "backup", "--db", path, "--to", backup])
        #expect(again.status != 0 && again.errors.contains("already exists"), "a backup never overwrites")

        let fresh = temporaryDatabase()
        _ = try OpStore(path: fresh)
        let restored = try runEasel(["db", "restore", "--db", fresh, "--from", backup, "--doc", "board"])
        #expect(restored.status == 0, "\(restored.errors)")
        #expect(try BlobStore(besideDatabase: fresh).blobInfo(Self.hash(1), document: "board")?.size == 150_000)
    }
}
