import CEaselSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SQLite connection, used by one thread at a time (the storage worker,
/// or a command-line tool). Statements are prepared once and cached.
final class Database {
    private var handle: OpaquePointer?
    private var statements: [String: Statement] = [:]
    let path: String

    init(path: String, readOnly: Bool = false) throws(StoreError) {
        self.path = path
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            // deinit runs after a throwing init: it must not close it again.
            self.handle = nil
            throw StoreError(.sqlite(code: code), "cannot open the database at \(path): \(message)")
        }
        _ = easel_sqlite_extended_codes(handle)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Waits up to `milliseconds` for another connection's write lock,
    /// retrying every 0.1 ms at first and at least every millisecond. SQLite's
    /// own busy timeout sleeps 1, 2, 5, 10 … 100 ms between tries: behind
    /// the blob thread's back-to-back chunk commits, an op commit kept
    /// missing the moments the lock was free, and waited tens of
    /// milliseconds (`easel bench blobs`, Docs/server.md).
    func waitForLocks(milliseconds: Int) {
        // The budget rides in the context pointer: the handler captures nothing.
        let budget = UnsafeMutableRawPointer(bitPattern: max(milliseconds, 1) + 5)
        sqlite3_busy_handler(
            handle,
            { context, count in
                let tries = Int32(truncatingIfNeeded: Int(bitPattern: context))
                guard count < tries else { return 0 }
                usleep(UInt32(100 * min(count + 1, 10)))
                return 1
            }, budget)
    }

    /// Runs SQL with no parameters and no rows (schema, pragmas, BEGIN…).
    func execute(_ sql: String) throws(StoreError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard code == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(errorMessage)
            throw StoreError(.sqlite(code: code), message, sql: sql)
        }
    }

    /// A cached prepared statement, reset and with its bindings cleared.
    func statement(_ sql: String) throws(StoreError) -> Statement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var pointer: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard code == SQLITE_OK, let pointer else {
            throw StoreError(.sqlite(code: code), lastMessage, sql: sql)
        }
        let statement = Statement(pointer, database: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// The value of a pragma that answers with one row (or nil).
    func pragma(_ name: String) throws(StoreError) -> String? {
        let statement = try statement("PRAGMA \(name)")
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// Runs `body` in one transaction: committed if it returns, rolled back
    /// if it throws. `immediate` takes the write lock at once (for writes);
    /// otherwise it is a read transaction: one consistent view, no lock
    /// that keeps writers out. `beforeCommit` sees the body's result just
    /// before the commit (a test's fault hooks in there). A commit that
    /// fails while syncing may still surface after a crash, so its error
    /// says the outcome is unknown.
    func transaction<T>(
        immediate: Bool = true, beforeCommit: (T) -> Void = { _ in }, _ body: () throws(StoreError) -> T
    ) throws(StoreError) -> T {
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        let result: T
        do {
            result = try body()
        } catch {
            // An I/O error may have rolled it back already; then this fails, unheard.
            try? execute("ROLLBACK")
            throw error
        }
        beforeCommit(result)
        do {
            try execute("COMMIT")
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            var unknown = error
            unknown.message = "the commit failed, its outcome is unknown: \(error.message)"
            throw unknown
        }
        return result
    }

    var lastMessage: String {
        String(cString: sqlite3_errmsg(handle))
    }

    /// Whether a transaction is open (SQLite is not in autocommit mode).
    var isInTransaction: Bool {
        sqlite3_get_autocommit(handle) == 0
    }

    var changes: Int {
        Int(sqlite3_changes(handle))
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRow: Int64 {
        sqlite3_last_insert_rowid(handle)
    }
}
