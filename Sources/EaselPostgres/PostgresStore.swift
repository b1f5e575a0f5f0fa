import EaselModel
import EaselProtocol
import EaselStore

/// A stored document as PostgreSQL keeps it.
public struct PostgresDocument: Hashable, Sendable {
    /// The row's key: ops, snapshots and the lease refer to it.
    public var id: Int64
    public var name: String
    public var epoch: Epoch
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// The last committed position.
    public var head: UInt64
}

/// The op log, snapshots and documents in PostgreSQL, over one connection
/// for one thread at a time: the same contract as the SQLite store
/// (positions contiguous, an op stored once, a load a consistent view).
/// Appends, which are fenced by leases, are in `PostgresStore+Appends`.
public final class PostgresStore {
    public let connection: PostgresConnection
    /// Payload format of an op, and of a snapshot's state: an op batch of
    /// Easel's binary encoding (one op for an op), as in the SQLite store.
    static let payloadFormat: Int16 = 1
    /// PostgreSQL's integers are signed: counters and positions stay below 2^63.
    static let largest = UInt64(Int64.max)

    /// Connects, and brings the schema up to date unless `migrating` is false.
    public init(url: String, migrating: Bool = true, setup: [String] = []) throws(PostgresError) {
        connection = try PostgresConnection(url: url, setup: setup)
        if migrating { try PostgresSchema.migrate(connection) }
    }

    // MARK: Documents

    public func document(named name: String) throws(PostgresError) -> PostgresDocument? {
        let rows = try connection.query("SELECT id, epoch, created_at, head FROM documents WHERE name = $1") {
            $0.append(name)
        }
        guard rows.count > 0 else { return nil }
        return PostgresDocument(
            id: try rows.int64(0, 0), name: name, epoch: Epoch(rawValue: UInt64(bitPattern: try rows.int64(0, 1))),
            createdAt: try rows.int64(0, 2), head: UInt64(clamping: try rows.int64(0, 3)))
    }

    /// Creates a document, or returns the one another node created first.
    @discardableResult
    public func createDocument(_ name: String, epoch: Epoch, at now: Int64) throws(PostgresError) -> PostgresDocument {
        try connection.query(
            "INSERT INTO documents (name, epoch, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING"
        ) {
            $0.append(name)
            $0.append(Int64(bitPattern: epoch.rawValue))
            $0.append(now)
        }
        guard let created = try document(named: name) else {
            throw PostgresError(.unexpected, "\(name) was neither created nor found (deleted at once?)")
        }
        return created
    }

    public func listDocuments() throws(PostgresError) -> [DocumentSummary] {
        let rows = try connection.query(
            """
            SELECT d.name, d.epoch, d.created_at, d.head,
                (SELECT count(*) FROM ops WHERE document = d.id),
                (SELECT max(position) FROM snapshots WHERE document = d.id)
            FROM documents d ORDER BY d.name
            """)
        var summaries: [DocumentSummary] = []
        for row in 0..<rows.count {
            let info = DocumentInfo(
                name: try rows.text(row, 0), epoch: Epoch(rawValue: UInt64(bitPattern: try rows.int64(row, 1))),
                createdAt: try rows.int64(row, 2))
            summaries.append(
                DocumentSummary(
                    info: info, head: UInt64(clamping: try rows.int64(row, 3)), opsInLog: Int(try rows.int64(row, 4)),
                    latestSnapshot: rows.isNull(row, 5) ? nil : UInt64(clamping: try rows.int64(row, 5))))
        }
        return summaries
    }

    // MARK: Reading

    /// The latest snapshot and the ops after it, in one repeatable-read
    /// transaction: what a room serves from.
    public func load(_ name: String) throws(PostgresError) -> CommittedHistory {
        try readConsistently { () throws(PostgresError) -> CommittedHistory in
            guard let document = try document(named: name) else {
                throw PostgresError(.unexpected, "no such document: \(name)")
            }
            let snapshot = try latestSnapshot(of: document)
            let tail = try ops(of: document, after: snapshot?.position ?? 0)
            var highWater = snapshot?.highWater ?? [:]
            for stored in tail {
                highWater[stored.op.id.replica] = max(highWater[stored.op.id.replica] ?? 0, stored.op.id.counter)
            }
            let history = CommittedHistory(
                name: name, epoch: document.epoch, snapshot: snapshot, tail: tail, highWater: highWater)
            guard history.head == document.head else {
                throw PostgresError(
                    .corrupt, "\(name)'s log ends at \(history.head), but its head says \(document.head)")
            }
            return history
        }
    }

    /// The committed ops after `position`, in order; refused if they skip one.
    public func ops(of document: PostgresDocument, after position: UInt64, limit: Int = .max) throws(PostgresError)
        -> [LoggedOp]
    {
        let rows = try connection.query(
            """
            SELECT position, author, received_at, format, payload FROM ops
            WHERE document = $1 AND position > $2 ORDER BY position LIMIT $3
            """
        ) {
            $0.append(document.id)
            $0.append(Int64(clamping: position))
            $0.append(Int64(clamping: limit))
        }
        var ops: [LoggedOp] = []
        ops.reserveCapacity(rows.count)
        var expected = position + 1
        for row in 0..<rows.count {
            let at = UInt64(clamping: try rows.int64(row, 0))
            guard at == expected else {
                throw PostgresError(.corrupt, "\(document.name)'s log skips from position \(expected - 1) to \(at)")
            }
            guard try rows.int16(row, 3) == Self.payloadFormat else {
                throw PostgresError(.corrupt, "\(document.name)'s op at \(at) has a payload format this Easel lacks")
            }
            let payload = try rows.bytes(row, 4)
            let decoded: [Op]
            do throws(DecodeError) {
                decoded = try OpBatchCoding.decode(payload)
            } catch {
                throw PostgresError(.corrupt, "\(document.name)'s op at \(at) does not decode: \(error)")
            }
            guard decoded.count == 1, let op = decoded.first else {
                throw PostgresError(.corrupt, "\(document.name)'s op at \(at) holds \(decoded.count) ops")
            }
            ops.append(
                LoggedOp(position: at, op: op, author: try rows.text(row, 1), receivedAt: try rows.int64(row, 2)))
            expected += 1
        }
        return ops
    }

    /// How many times the log holds the op: 1 once committed, never more
    /// (the unique index), 0 when it is not there.
    public func copies(of id: OpID, in name: String) throws(PostgresError) -> Int {
        let rows = try connection.query(
            """
            SELECT count(*) FROM ops o JOIN documents d ON d.id = o.document
            WHERE d.name = $1 AND o.replica = $2 AND o.counter = $3
            """
        ) {
            $0.append(name)
            $0.append(Int64(bitPattern: id.replica.rawValue))
            $0.append(Int64(clamping: id.counter))
        }
        return Int(try rows.int64(0, 0))
    }

    /// The latest snapshot, or with `limit` the latest at or before it.
    public func latestSnapshot(of document: PostgresDocument, atOrBefore limit: UInt64 = .max) throws(PostgresError)
        -> StateSnapshot?
    {
        let rows = try connection.query(
            """
            SELECT position, format, state FROM snapshots WHERE document = $1 AND position <= $2
            ORDER BY position DESC LIMIT 1
            """
        ) {
            $0.append(document.id)
            $0.append(Int64(clamping: limit))
        }
        guard rows.count > 0 else { return nil }
        let position = UInt64(clamping: try rows.int64(0, 0))
        guard try rows.int16(0, 1) == Self.payloadFormat else {
            throw PostgresError(.corrupt, "\(document.name)'s snapshot at \(position) has a format this Easel lacks")
        }
        let encoded = try rows.bytes(0, 2)
        let state: [Op]
        do throws(DecodeError) {
            state = try OpBatchCoding.decode(encoded)
        } catch {
            throw PostgresError(.corrupt, "\(document.name)'s snapshot at \(position) does not decode: \(error)")
        }
        let counters = try connection.query(
            "SELECT replica, counter FROM snapshot_counters WHERE document = $1 AND position = $2"
        ) {
            $0.append(document.id)
            $0.append(Int64(clamping: position))
        }
        var highWater: [ReplicaID: UInt64] = [:]
        for row in 0..<counters.count {
            highWater[ReplicaID(rawValue: UInt64(bitPattern: try counters.int64(row, 0)))] = UInt64(
                clamping: try counters.int64(row, 1))
        }
        return StateSnapshot(position: position, state: state, highWater: highWater)
    }

    public func latestSnapshotPosition(of document: PostgresDocument) throws(PostgresError) -> UInt64? {
        let rows = try connection.query("SELECT max(position) FROM snapshots WHERE document = $1") {
            $0.append(document.id)
        }
        return rows.isNull(0, 0) ? nil : UInt64(clamping: try rows.int64(0, 0))
    }

    // MARK: Snapshots

    /// Stores a snapshot of a document at a committed position (a second
    /// one at the same position replaces the first), unless its history
    /// was replaced since the snapshot was made (an import or restore gave
    /// it another epoch): a snapshot of the old history would not be one of
    /// the new. Whether it was stored.
    @discardableResult
    public func writeSnapshot(
        _ snapshot: EncodedSnapshot, of document: PostgresDocument, epoch: Epoch, at now: Int64
    ) throws(PostgresError) -> Bool {
        try connection.transaction { () throws(PostgresError) -> Bool in
            // KEY SHARE waits for an import's or restore's FOR UPDATE, and
            // never for an append moving the head.
            let current = try connection.query("SELECT epoch, head FROM documents WHERE id = $1 FOR KEY SHARE") {
                $0.append(document.id)
            }
            guard current.count == 1, try current.int64(0, 0) == Int64(bitPattern: epoch.rawValue),
                snapshot.position <= UInt64(clamping: try current.int64(0, 1))
            else { return false }
            try insertSnapshot(snapshot, of: document, at: now)
            return true
        }
    }

    /// `writeSnapshot` within the caller's transaction.
    func insertSnapshot(_ snapshot: EncodedSnapshot, of document: PostgresDocument, at now: Int64)
        throws(PostgresError)
    {
        guard snapshot.position <= Self.largest, snapshot.highWater.values.allSatisfy({ $0 <= Self.largest }) else {
            throw PostgresError(.unexpected, "a snapshot position or counter past 2^63 - 1")
        }
        try connection.query("DELETE FROM snapshots WHERE document = $1 AND position = $2") {
            $0.append(document.id)
            $0.append(Int64(snapshot.position))
        }
        try connection.query(
            "INSERT INTO snapshots (document, position, format, state, created_at) VALUES ($1, $2, $3, $4, $5)"
        ) {
            $0.append(document.id)
            $0.append(Int64(snapshot.position))
            $0.append(Int32(Self.payloadFormat))
            $0.append(bytes: snapshot.state)
            $0.append(now)
        }
        let replicas = snapshot.highWater.keys.sorted()
        try connection.query(
            """
            INSERT INTO snapshot_counters (document, position, replica, counter)
            SELECT $1, $2, replica, counter FROM unnest($3::bigint[], $4::bigint[]) AS c(replica, counter)
            """
        ) {
            $0.append(document.id)
            $0.append(Int64(snapshot.position))
            $0.append(int8Array: replicas.map { Int64(bitPattern: $0.rawValue) })
            $0.append(int8Array: replicas.map { Int64(snapshot.highWater[$0] ?? 0) })
        }
    }

    /// The document's snapshot at its head, encoded, nothing written; and
    /// the epoch of the history it is of.
    public func encodedSnapshot(of name: String) throws(PostgresError) -> (snapshot: EncodedSnapshot, epoch: Epoch) {
        let loaded = try load(name)
        let snapshot = EncodedSnapshot(
            StateSnapshot(position: loaded.head, state: loaded.document().snapshotOps, highWater: loaded.highWater))
        return (snapshot, loaded.epoch)
    }

    // MARK: Transactions

    /// Runs `body` in one read-only repeatable-read transaction: one view
    /// of the database, whatever commits meanwhile.
    func readConsistently<T>(_ body: () throws(PostgresError) -> T) throws(PostgresError) -> T {
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let value = try body()
            try connection.execute("COMMIT")
            return value
        } catch {
            if !connection.isBroken { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }
}
