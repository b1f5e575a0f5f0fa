/// A database file's schema, one migration a version. `PRAGMA user_version`
/// records how many have run; a file from a newer Easel is refused.
struct Schema: Sendable {
    /// What the file is called in errors.
    let file: String
    /// Never edit a shipped migration: add the next one.
    let migrations: [String]

    /// The op log's file: documents, ops, snapshots.
    static let opLog = Schema(
        file: "database",
        migrations: [
            // 1: documents, the op log, snapshots.
            """
            CREATE TABLE documents (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                -- Changes when the history is replaced (an import, a restore).
                epoch INTEGER NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE ops (
                document INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                replica INTEGER NOT NULL,
                counter INTEGER NOT NULL,
                -- The authenticated user the server received the op from.
                author TEXT NOT NULL,
                -- Milliseconds since 1970, when the server received it.
                received_at INTEGER NOT NULL,
                -- 1: the op as a one-op batch of Easel's binary encoding.
                format INTEGER NOT NULL,
                payload BLOB NOT NULL,
                PRIMARY KEY (document, position)
            ) WITHOUT ROWID;
            -- The safety net under the room's deduplication.
            CREATE UNIQUE INDEX ops_by_id ON ops (document, replica, counter);
            CREATE TABLE snapshots (
                document INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                -- 1: the state as an op batch of Easel's binary encoding.
                format INTEGER NOT NULL,
                state BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                PRIMARY KEY (document, position)
            ) WITHOUT ROWID;
            -- Per-replica high-water counters as of each snapshot: with the tail
            -- they deduplicate resent ops even after compaction.
            CREATE TABLE snapshot_counters (
                document INTEGER NOT NULL,
                position INTEGER NOT NULL,
                replica INTEGER NOT NULL,
                counter INTEGER NOT NULL,
                PRIMARY KEY (document, position, replica),
                FOREIGN KEY (document, position) REFERENCES snapshots (document, position) ON DELETE CASCADE
            ) WITHOUT ROWID;
            """,
            // 2: which process serves which document, so tools that replace a
            // history refuse while a server has it open.
            """
            CREATE TABLE serving (
                document TEXT PRIMARY KEY,
                pid INTEGER NOT NULL,
                since INTEGER NOT NULL
            ) WITHOUT ROWID;
            """,
            // 3: blobs, content-addressed, stored once however many documents
            // use them. An upload writes its bytes in chunks, each in a small
            // transaction of its own; the blob exists only once the row that
            // names its upload commits, so a killed upload leaves no blob.
            blobTables,
            // 4: the blob tables move to a file of their own (BlobStore, the
            // blobs schema below), so blob writes never hold the op log's
            // write lock. OpStore copies what version 3 held before this runs.
            """
            DROP TABLE blob_documents;
            DROP TABLE blobs;
            DROP TABLE blob_chunks;
            DROP TABLE uploads;
            """,
        ])

    /// The blob file's schema (`BlobStore`): content-addressed blobs, stored
    /// once however many documents use them. An upload writes its bytes in
    /// chunks, each in a small transaction of its own; the blob exists only
    /// once the row that names its upload commits, so a killed upload
    /// leaves no blob.
    static let blobs = Schema(
        file: "blob file",
        migrations: [
            // 1: the tables version 3 of the op log's schema had.
            blobTables,
        ])

    /// The blob tables: version 3 of the op log's schema, and version 1 of
    /// the blob file's (where version 4 moved them).
    private static let blobTables = """
        CREATE TABLE uploads (
            id INTEGER PRIMARY KEY,
            started_at INTEGER NOT NULL
        );
        CREATE TABLE blob_chunks (
            upload INTEGER NOT NULL REFERENCES uploads(id) ON DELETE CASCADE,
            sequence INTEGER NOT NULL,
            bytes BLOB NOT NULL,
            PRIMARY KEY (upload, sequence)
        ) WITHOUT ROWID;
        CREATE TABLE blobs (
            -- The SHA-256 of the bytes, 32 bytes.
            hash BLOB PRIMARY KEY,
            upload INTEGER NOT NULL REFERENCES uploads(id),
            size INTEGER NOT NULL,
            -- The sniffed media type, such as image/png.
            type TEXT NOT NULL,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        -- The documents each blob was uploaded to, and when last.
        CREATE TABLE blob_documents (
            hash BLOB NOT NULL REFERENCES blobs(hash) ON DELETE CASCADE,
            document TEXT NOT NULL,
            uploaded_at INTEGER NOT NULL,
            PRIMARY KEY (hash, document)
        ) WITHOUT ROWID;
        """

    var version: Int32 { Int32(migrations.count) }

    /// Brings the database up to `version`, or refuses a newer one.
    func migrate(_ database: Database) throws(StoreError) {
        guard try check(database) < version else { return }
        try database.transaction { () throws(StoreError) in
            // Read again under the write lock: another process opening the
            // same new file may have migrated it meanwhile.
            let found = try check(database)
            for migration in migrations[Int(found)...] { try database.execute(migration) }
            try database.execute("PRAGMA user_version = \(version)")
        }
    }

    /// The database's version; a newer one than this Easel knows is refused.
    @discardableResult
    func check(_ database: Database) throws(StoreError) -> Int32 {
        let found = Int32(try database.pragma("user_version") ?? "0") ?? 0
        guard found <= version else {
            throw StoreError(
                .newerSchema(found: found, supported: version),
                "the \(file) at \(database.path) has schema version \(found), but this Easel reads versions up to "
                    + "\(version): upgrade Easel to open it")
        }
        return found
    }
}
