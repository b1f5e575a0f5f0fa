/// The PostgreSQL database's schema, one migration a version, with the
/// version in `easel_schema`. Nodes starting at once migrate one at a time
/// (an advisory lock held for the transaction); a database from a newer
/// Easel is refused.
enum PostgresSchema {
    /// Never edit a shipped migration: add the next one.
    static let migrations = [
        // 1: documents, the op log, snapshots, nodes, leases, blobs.
        """
        CREATE TABLE documents (
            id bigserial PRIMARY KEY,
            name text NOT NULL UNIQUE,
            -- Changes when the history is replaced (an import, a restore).
            epoch bigint NOT NULL,
            -- Milliseconds since 1970.
            created_at bigint NOT NULL,
            -- The last committed position: each append moves it on from the
            -- position before its first op, or appends nothing.
            head bigint NOT NULL DEFAULT 0
        );
        CREATE TABLE ops (
            document bigint NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            position bigint NOT NULL,
            replica bigint NOT NULL,
            counter bigint NOT NULL,
            -- The authenticated user the server received the op from.
            author text NOT NULL,
            -- Milliseconds since 1970, when the server received it.
            received_at bigint NOT NULL,
            -- 1: the op as a one-op batch of Easel's binary encoding.
            format smallint NOT NULL,
            payload bytea NOT NULL,
            PRIMARY KEY (document, position)
        );
        -- The safety net under the room's deduplication.
        CREATE UNIQUE INDEX ops_by_id ON ops (document, replica, counter);
        CREATE TABLE snapshots (
            document bigint NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            position bigint NOT NULL,
            -- 1: the state as an op batch of Easel's binary encoding.
            format smallint NOT NULL,
            state bytea NOT NULL,
            created_at bigint NOT NULL,
            PRIMARY KEY (document, position)
        );
        -- Per-replica high-water counters as of each snapshot.
        CREATE TABLE snapshot_counters (
            document bigint NOT NULL,
            position bigint NOT NULL,
            replica bigint NOT NULL,
            counter bigint NOT NULL,
            PRIMARY KEY (document, position, replica),
            FOREIGN KEY (document, position) REFERENCES snapshots (document, position) ON DELETE CASCADE
        );
        -- Each serving process, a row per start: its leases live while it
        -- renews this row and its session holds the advisory lock on its id.
        CREATE TABLE nodes (
            id bigserial PRIMARY KEY,
            -- The name the router knows it by (HAProxy's server name).
            name text NOT NULL,
            -- Where it serves, host:port.
            address text NOT NULL,
            started_at timestamptz NOT NULL DEFAULT now(),
            -- By the database's clock, never a node's.
            expires_at timestamptz NOT NULL,
            -- Stopping: it is handing its documents over, and a node asked
            -- for one waits for its release instead of sending clients back.
            draining boolean NOT NULL DEFAULT false
        );
        -- Who may append to a document. A lease with no node was released.
        CREATE TABLE leases (
            document bigint PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
            node bigint REFERENCES nodes (id) ON DELETE SET NULL,
            -- The fencing token: raised each time the lease is taken, and
            -- checked by every append in its own transaction.
            fence bigint NOT NULL
        );
        CREATE INDEX leases_by_node ON leases (node);
        -- Blobs, content-addressed, stored once however many documents use
        -- them; a blob exists once the row naming its upload commits.
        CREATE TABLE uploads (
            id bigserial PRIMARY KEY,
            started_at bigint NOT NULL
        );
        CREATE TABLE blob_chunks (
            upload bigint NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
            sequence integer NOT NULL,
            bytes bytea NOT NULL,
            PRIMARY KEY (upload, sequence)
        );
        CREATE TABLE blobs (
            -- The SHA-256 of the bytes, 32 bytes.
            hash bytea PRIMARY KEY,
            upload bigint NOT NULL REFERENCES uploads (id),
            size bigint NOT NULL,
            type text NOT NULL,
            created_at bigint NOT NULL
        );
        CREATE TABLE blob_documents (
            hash bytea NOT NULL REFERENCES blobs (hash) ON DELETE CASCADE,
            document text NOT NULL,
            uploaded_at bigint NOT NULL,
            PRIMARY KEY (hash, document)
        );
        """,
        // 2: a lease being handed to the node the router now sends its
        // document to: that node waits for the release instead of sending
        // clients back to the holder.
        """
        ALTER TABLE leases ADD COLUMN handover_to bigint REFERENCES nodes (id) ON DELETE SET NULL;
        """,
    ]

    static var version: Int { migrations.count }

    /// The advisory lock migrations take: any number the other users of
    /// the database do not take (ASCII "easel").
    static let migrationLock: Int64 = 0x65_6173_656C

    /// Brings the database up to `version`, or refuses a newer one.
    static func migrate(_ connection: PostgresConnection) throws(PostgresError) {
        try connection.transaction { () throws(PostgresError) in
            try connection.query("SELECT pg_advisory_xact_lock($1)") { $0.append(migrationLock) }
            try connection.execute("CREATE TABLE IF NOT EXISTS easel_schema (version integer NOT NULL)")
            let rows = try connection.query("SELECT version FROM easel_schema")
            let found = rows.count == 0 ? 0 : Int(try rows.int32(0, 0))
            guard found <= version else {
                throw PostgresError(
                    .unexpected,
                    "the database has schema version \(found), but this Easel reads versions up to \(version): "
                        + "upgrade Easel to open it")
            }
            guard found < version else { return }
            for migration in migrations[found...] { try connection.execute(migration) }
            try connection.execute("DELETE FROM easel_schema")
            try connection.query("INSERT INTO easel_schema (version) VALUES ($1)") { $0.append(Int32(version)) }
        }
    }
}
