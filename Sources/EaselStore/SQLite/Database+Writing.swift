import CEaselSQLite

extension Database {
    /// Opens a file for a store that writes: WAL, the durability's sync
    /// level, foreign keys, and waiting up to `busyTimeoutMilliseconds` for
    /// another connection's lock.
    static func forWriting(
        path: String, durability: Durability, busyTimeoutMilliseconds: Int
    ) throws(StoreError) -> Database {
        let database = try Database(path: path)
        // Debian's SQLite defaults to busy_timeout 0: set it before anything
        // can meet another process's lock.
        database.waitForLocks(milliseconds: busyTimeoutMilliseconds)
        let mode = try OpStore.retryingWhileBusy { () throws(StoreError) in try database.pragma("journal_mode = WAL") }
        guard mode == "wal" else {
            throw StoreError(
                .sqlite(code: SQLITE_ERROR), "cannot switch \(path) to WAL mode (it says \(mode ?? "nothing"))")
        }
        try database.execute("PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        try database.execute("PRAGMA foreign_keys = ON")
        return database
    }
}
