import EaselModel
import Foundation

/// Image bytes, content-addressed, in a SQLite file of their own beside the
/// op log's (`easel.db-blobs` beside `easel.db`).
///
/// A file of their own because SQLite has one write lock a file: while
/// blobs shared the op log's file, every chunk an upload committed made
/// the op commits behind it wait, and pushes from other clients took 5x
/// longer at the 99th percentile (Docs/storage.md). Each file also
/// checkpoints its own write-ahead log, so a blob's megabytes are never
/// checkpointed by an op commit.
///
/// Not thread-safe: one thread uses a store (the server's blob thread, or
/// a command-line tool); other processes may use the same file at once.
public final class BlobStore {
    let database: Database
    public let durability: Durability

    /// The blob file that belongs to the op log at `databasePath`.
    public static func path(besideDatabase databasePath: String) -> String {
        databasePath + "-blobs"
    }

    public init(path: String, durability: Durability = .full, busyTimeoutMilliseconds: Int = 5000) throws(StoreError)
    {
        database = try Database.forWriting(
            path: path, durability: durability, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        self.durability = durability
        try Schema.blobs.migrate(database)
    }

    /// The blob file beside an op log, created when missing.
    public convenience init(besideDatabase databasePath: String, durability: Durability = .full) throws(StoreError) {
        try self.init(path: Self.path(besideDatabase: databasePath), durability: durability)
    }

    private init(readingExisting database: Database) throws(StoreError) {
        self.database = database
        durability = .full
        try Schema.blobs.check(database)
    }

    public var path: String { database.path }

    /// Opens the blobs of an op log only to read them (a backup, or a tool
    /// that must not change the database): nothing is created or written.
    /// Nil when there are none to read: no blob file beside it, and an op
    /// log from before blobs had files of their own (schema 4) that holds
    /// no blob tables either.
    public static func reading(besideDatabase databasePath: String) throws(StoreError) -> BlobStore? {
        let blobPath = path(besideDatabase: databasePath)
        if FileManager.default.fileExists(atPath: blobPath) {
            return try BlobStore(readingExisting: Database(path: blobPath, readOnly: true))
        }
        // Version 3 kept the blob tables in the op log's own file; their
        // names are the same, so the same queries read them there.
        let opLog = try Database(path: databasePath, readOnly: true)
        let version = Int32(try opLog.pragma("user_version") ?? "0") ?? 0
        guard version == 3 else { return nil }
        return BlobStore(unversioned: opLog)
    }

    /// A version-3 op log's file read for its blob tables.
    private init(unversioned database: Database) {
        self.database = database
        durability = .full
    }

    /// Copies every blob to `path` with `VACUUM INTO`: a consistent copy
    /// even while another process writes.
    public func backup(to path: String) throws(StoreError) {
        try database.copy(to: path)
    }
}
