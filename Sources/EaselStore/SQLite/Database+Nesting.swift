extension Database {
    /// Runs `body` in a write transaction, or inside the caller's if one is open.
    func inTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        if isInTransaction { return try body() }
        return try transaction(body)
    }

    /// Runs `body` in one read transaction (one consistent view), or in the
    /// caller's transaction if one is open.
    func readConsistently<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        if isInTransaction { return try body() }
        return try transaction(immediate: false, body)
    }

    /// Copies the whole file to `path` with `VACUUM INTO`: a consistent copy
    /// even while another process writes.
    func copy(to path: String) throws(StoreError) {
        let statement = try statement("VACUUM INTO ?")
        try statement.bind(1, path)
        try statement.step()
    }
}
