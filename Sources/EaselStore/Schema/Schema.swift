/// The database schema, one migration a version. `PRAGMA user_version`
/// records how many have run; a database from a newer Easel is refused.
enum Schema {
    /// Never edit a shipped migration: add the next one.
    static let migrations: [String] = [
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
        """
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
        -- The documents each blob was uploaded to.
        CREATE TABLE blob_documents (
            hash BLOB NOT NULL REFERENCES blobs(hash) ON DELETE CASCADE,
            document TEXT NOT NULL,
            uploaded_at INTEGER NOT NULL,
            PRIMARY KEY (hash, document)
        ) WITHOUT ROWID;
        """,
    ]

    static var version: Int32 { Int32(migrations.count) }

    /// Brings the database up to `version`, or refuses a newer one.
    static func migrate(_ database: Database) throws(StoreError) {
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
    static func check(_ database: Database) throws(StoreError) -> Int32 {
        let found = Int32(try database.pragma("user_version") ?? "0") ?? 0
        guard found <= version else {
            throw StoreError(
                .newerSchema(found: found, supported: version),
                "the database at \(database.path) has schema version \(found), but this Easel reads versions up to "
                    + "\(version): upgrade Easel to open it")
        }
        return found
    }
}
