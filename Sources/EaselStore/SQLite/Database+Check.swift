extension Database {
    /// SQLite's `quick_check`: nothing when the file is sound, else each
    /// problem it names.
    func quickCheck() throws(StoreError) -> [String] {
        let statement = try statement("PRAGMA quick_check")
        defer { statement.reset() }
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(0)) }
        return lines == ["ok"] ? [] : lines
    }
}

extension OpStore {
    /// What SQLite's `quick_check` finds wrong with the file: nothing, after
    /// any crash or power cut, if SQLite kept its promises to Easel.
    public func integrityProblems() throws(StoreError) -> [String] {
        try database.quickCheck()
    }
}

extension BlobStore {
    /// What SQLite's `quick_check` finds wrong with the blob file.
    public func integrityProblems() throws(StoreError) -> [String] {
        try database.quickCheck()
    }
}
