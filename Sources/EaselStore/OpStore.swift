import CEaselSQLite
import EaselModel
import EaselProtocol
import Foundation

/// The op log and snapshots of every document, in one SQLite file (the
/// blobs live in a file of their own beside it: `BlobStore`).
///
/// Not thread-safe: one thread uses a store (the storage worker, or a
/// command-line tool); other processes may use the same file at once.
/// Every method that writes runs in the caller's transaction if there is
/// one, or in its own.
public final class OpStore {
    let database: Database
    public let durability: Durability

    /// Payload format of an op: a one-op batch of Easel's binary encoding.
    static let opFormat: Int64 = 1
    /// Format of a snapshot's state: an op batch of its ops.
    static let snapshotFormat: Int64 = 1
    /// SQLite integers are signed: counters and positions stay below 2^63.
    static let largest = UInt64(Int64.max)

    public init(path: String, durability: Durability = .full, busyTimeoutMilliseconds: Int = 5000) throws(StoreError) {
        database = try Database.forWriting(
            path: path, durability: durability, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        self.durability = durability
        try moveVersion3Blobs()
        try Schema.opLog.migrate(database)
    }

    public var path: String { database.path }

    private init(database: Database) throws(StoreError) {
        self.database = database
        durability = .full
        try Schema.opLog.check(database)
    }

    // MARK: Documents

    public func documentInfo(_ name: String) throws(StoreError) -> DocumentInfo? {
        let statement = try database.statement("SELECT epoch, created_at FROM documents WHERE name = ?")
        defer { statement.reset() }
        try statement.bind(1, name)
        guard try statement.step() else { return nil }
        return DocumentInfo(
            name: name, epoch: Epoch(rawValue: UInt64(bitPattern: statement.int64(0))), createdAt: statement.int64(1))
    }

    /// Creates a document, or returns the existing one's info.
    @discardableResult
    public func createDocument(_ name: String, epoch: Epoch, at now: Int64) throws(StoreError) -> DocumentInfo {
        if let existing = try documentInfo(name) { return existing }
        let statement = try database.statement("INSERT INTO documents (name, epoch, created_at) VALUES (?, ?, ?)")
        try statement.bind(1, name)
        try statement.bind(2, Int64(bitPattern: epoch.rawValue))
        try statement.bind(3, now)
        try statement.step()
        return DocumentInfo(name: name, epoch: epoch, createdAt: now)
    }

    /// Replaces a document's epoch (its history was replaced).
    public func setEpoch(_ epoch: Epoch, of name: String) throws(StoreError) {
        let statement = try database.statement("UPDATE documents SET epoch = ? WHERE name = ?")
        try statement.bind(1, Int64(bitPattern: epoch.rawValue))
        try statement.bind(2, name)
        try statement.step()
        guard database.changes == 1 else { throw StoreError(.unknownDocument, "no such document", document: name) }
    }

    public func listDocuments() throws(StoreError) -> [DocumentSummary] {
        let statement = try database.statement(
            """
            SELECT d.name, d.epoch, d.created_at,
                (SELECT MAX(position) FROM ops WHERE document = d.id),
                (SELECT COUNT(*) FROM ops WHERE document = d.id),
                (SELECT MAX(position) FROM snapshots WHERE document = d.id)
            FROM documents d ORDER BY d.name
            """)
        var summaries: [DocumentSummary] = []
        while try statement.step() {
            let snapshot = statement.isNull(5) ? nil : try statement.unsigned(5)
            let opsHead = statement.isNull(3) ? 0 : try statement.unsigned(3)
            summaries.append(
                DocumentSummary(
                    info: DocumentInfo(
                        name: statement.text(0), epoch: Epoch(rawValue: UInt64(bitPattern: statement.int64(1))),
                        createdAt: statement.int64(2)),
                    head: max(opsHead, snapshot ?? 0), opsInLog: Int(statement.int64(4)), latestSnapshot: snapshot))
        }
        return summaries
    }

    /// Deletes a document with its log and snapshots; refused while a
    /// server serves it.
    public func deleteDocument(_ name: String) throws(StoreError) {
        try inTransaction { () throws(StoreError) in
            let id = try documentID(name)
            if let server = try servingProcess(of: name) {
                throw StoreError(
                    .documentBusy, "process \(server) is serving the document; stop it first", document: name)
            }
            for sql in [
                "DELETE FROM snapshot_counters WHERE document = ?", "DELETE FROM snapshots WHERE document = ?",
                "DELETE FROM ops WHERE document = ?", "DELETE FROM documents WHERE id = ?",
            ] {
                let statement = try database.statement(sql)
                try statement.bind(1, id)
                try statement.step()
            }
        }
    }

    /// Looked up every time (about a microsecond): a cached id goes stale
    /// when another process deletes a document and a new one reuses its id.
    func documentID(_ name: String) throws(StoreError) -> Int64 {
        let statement = try database.statement("SELECT id FROM documents WHERE name = ?")
        defer { statement.reset() }
        try statement.bind(1, name)
        guard try statement.step() else { throw StoreError(.unknownDocument, "no such document", document: name) }
        return statement.int64(0)
    }

    // MARK: The log

    /// Appends ops the room has positioned, in order: the first continues
    /// the log (head + 1) and each next one follows it. A gap, an op the log
    /// already has, or a value past 2^63 is an error and appends nothing.
    public func append(_ ops: [StoredOp], to name: String) throws(StoreError) {
        guard let first = ops.first else { return }
        let id = try documentID(name)
        try inTransaction { () throws(StoreError) in
            let head = try self.head(documentID: id)
            guard first.position == head + 1 else {
                throw StoreError(
                    .positionGap, "the first op must take position \(head + 1)", document: name,
                    position: first.position)
            }
            var expected = first.position
            for stored in ops {
                guard stored.position == expected, stored.position <= Self.largest,
                    stored.op.id.counter <= Self.largest
                else {
                    throw StoreError(
                        stored.position == expected ? .outOfRange : .positionGap,
                        stored.position == expected
                            ? "counter \(stored.op.id.counter) or position is past 2^63 - 1"
                            : "positions must follow each other; expected \(expected)",
                        document: name, position: stored.position)
                }
                expected += 1
            }
            var payload = ByteWriter(capacity: 64)
            var next = 0
            while next < ops.count {
                let rows = Self.rowsPerInsert.first { $0 <= ops.count - next } ?? 1
                let chunk = ops[next..<next + rows]
                do throws(StoreError) {
                    try insert(chunk, documentID: id, payload: &payload)
                } catch {
                    guard rows > 1, Self.isDuplicate(error) else {
                        throw Self.naming(error, chunk[next], in: name)
                    }
                    // The statement undid its own rows: one at a time names the op.
                    for stored in chunk {
                        do throws(StoreError) {
                            try insert(CollectionOfOne(stored), documentID: id, payload: &payload)
                        } catch {
                            throw Self.naming(error, stored, in: name)
                        }
                    }
                }
                next += rows
            }
        }
    }

    private static func isDuplicate(_ error: StoreError) -> Bool {
        if case .sqlite(let code) = error.reason { easel_sqlite_is_constraint_unique(code) != 0 } else { false }
    }

    /// An insert's error as the append reports it, about the op it stopped at.
    private static func naming(_ error: StoreError, _ stored: StoredOp, in document: String) -> StoreError {
        guard isDuplicate(error) else { return error.about(document: document, position: stored.position) }
        return StoreError(
            .duplicateOp, "op \(stored.op.id) is already in the log", document: document, position: stored.position)
    }

    /// Rows one insert statement takes, largest first: a commit's ops of a
    /// document go in as few statements as these sizes allow (three ops in
    /// two, a hundred in three). A statement a row cost a one-set push about
    /// 19,300 instructions on the storage thread in `easel bench serve`'s
    /// saturation run under callgrind, 11,100 this way, most of the
    /// difference SQLite's setup and teardown of each statement.
    static let rowsPerInsert = [64, 32, 16, 8, 4, 2, 1]

    /// `INSERT INTO ops … VALUES (…), (…)` for each of `rowsPerInsert`.
    private static let insertStatements = Dictionary(
        uniqueKeysWithValues: rowsPerInsert.map { rows in
            let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
            return (
                rows,
                "INSERT INTO ops (document, position, replica, counter, author, received_at, format, payload) VALUES \(values)"
            )
        })

    /// Inserts ops (as many as one of `rowsPerInsert`) in one statement.
    private func insert(
        _ ops: some Collection<StoredOp>, documentID id: Int64, payload: inout ByteWriter
    ) throws(StoreError) {
        let insert = try database.statement(Self.insertStatements[ops.count] ?? "")
        var parameter: Int32 = 1
        for stored in ops {
            try insert.bind(parameter, id)
            try insert.bind(parameter + 1, Int64(stored.position))
            try insert.bind(parameter + 2, Int64(bitPattern: stored.op.id.replica.rawValue))
            try insert.bind(parameter + 3, Int64(stored.op.id.counter))
            try insert.bind(parameter + 4, stored.author)
            try insert.bind(parameter + 5, stored.receivedAt)
            try insert.bind(parameter + 6, Self.opFormat)
            OpBatchCoding.encode(stored.op, into: &payload)
            try insert.bind(parameter + 7, payload.bytes)
            parameter += 8
        }
        try insert.step()
    }

    /// The committed ops after `position`, in order, at most `limit`.
    public func ops(of name: String, after position: UInt64, limit: Int = .max) throws(StoreError) -> [StoredOp] {
        let id = try documentID(name)
        let statement = try database.statement(
            """
            SELECT position, author, received_at, format, payload FROM ops
            WHERE document = ? AND position > ? ORDER BY position LIMIT ?
            """)
        try statement.bind(1, id)
        try statement.bind(2, Int64(clamping: position))
        try statement.bind(3, Int64(clamping: limit))
        // A corrupt row throws mid-loop: reset, or the connection keeps an
        // old read snapshot (stale reads, a growing WAL, busy writers).
        defer { statement.reset() }
        var ops: [StoredOp] = []
        while try statement.step() {
            ops.append(try storedOp(from: statement, document: name))
        }
        return ops
    }

    /// The committed op with this ID, if the log still has it (a room asks,
    /// to tell a resend from a conflicting op).
    public func op(of name: String, id opID: OpID) throws(StoreError) -> StoredOp? {
        let id = try documentID(name)
        let statement = try database.statement(
            """
            SELECT position, author, received_at, format, payload FROM ops
            WHERE document = ? AND replica = ? AND counter = ?
            """)
        try statement.bind(1, id)
        try statement.bind(2, Int64(bitPattern: opID.replica.rawValue))
        try statement.bind(3, Int64(clamping: opID.counter))
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try storedOp(from: statement, document: name)
    }

    /// The last committed position (0 for an empty document).
    public func head(of name: String) throws(StoreError) -> UInt64 {
        try head(documentID: documentID(name))
    }

    private func head(documentID id: Int64) throws(StoreError) -> UInt64 {
        let statement = try database.statement(
            """
            SELECT MAX(p) FROM (SELECT MAX(position) AS p FROM ops WHERE document = ?1
                UNION ALL SELECT MAX(position) FROM snapshots WHERE document = ?1)
            """)
        defer { statement.reset() }
        try statement.bind(1, id)
        guard try statement.step(), !statement.isNull(0) else { return 0 }
        return try statement.unsigned(0)
    }

    private func storedOp(from statement: Statement, document: String) throws(StoreError) -> StoredOp {
        let position: UInt64
        do throws(StoreError) {
            position = try statement.unsigned(0)
        } catch {
            throw error.about(document: document)
        }
        let format = statement.int64(3)
        guard format == Self.opFormat else {
            throw StoreError(
                .corruptPayload, "payload format \(format) is unknown to this Easel", document: document,
                position: position)
        }
        do throws(DecodeError) {
            let ops = try OpBatchCoding.decode(statement.blob(4))
            guard ops.count == 1, let op = ops.first else {
                throw DecodeError(.invalidValue, "\(ops.count) ops where one belongs")
            }
            return StoredOp(position: position, op: op, author: statement.text(1), receivedAt: statement.int64(2))
        } catch {
            throw StoreError(
                .corruptPayload, "the op does not decode: \(error)", document: document, position: position)
        }
    }

    // MARK: Transactions

    /// Runs `body` in a transaction, or inside the caller's if one is open.
    func inTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try database.inTransaction(body)
    }

    /// Runs `body` in a savepoint of the open transaction: if it throws,
    /// only its own writes are undone.
    /// Outside a transaction a savepoint would start (and its release
    /// commit) a transaction of its own, so it is refused there.
    func savepoint<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        guard database.isInTransaction else {
            throw StoreError(.closed, "a savepoint needs an open transaction (the transaction was rolled back)")
        }
        try database.statement("SAVEPOINT room").step()
        do {
            let result = try body()
            try database.statement("RELEASE room").step()
            return result
        } catch {
            // An I/O error may have rolled back the whole transaction, and
            // the savepoint with it: then there is nothing to roll back to.
            if database.isInTransaction {
                _ = try? database.statement("ROLLBACK TO room").step()
                _ = try? database.statement("RELEASE room").step()
            }
            throw error
        }
    }
}

extension OpStore {
    /// Runs `body` in one read transaction (one consistent view), or in the
    /// caller's transaction if one is open.
    func readConsistently<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try database.readConsistently(body)
    }
}

extension OpStore {
    /// Opens a database only to read it (a backup): no migration, no change
    /// of journal mode, nothing written. A newer schema is still refused.
    public convenience init(readingBackupAt path: String) throws(StoreError) {
        try self.init(database: Database(path: path, readOnly: true))
    }

    /// Switching to WAL answers SQLITE_BUSY at once while another process
    /// opens the same new file, whatever the busy timeout: try a few times.
    static func retryingWhileBusy<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        var attempt = 0
        while true {
            do throws(StoreError) {
                return try body()
            } catch {
                guard case .sqlite(let code) = error.reason, code & 0xFF == SQLITE_BUSY, attempt < 50 else {
                    throw error
                }
                attempt += 1
                usleep(20_000)
            }
        }
    }
}
