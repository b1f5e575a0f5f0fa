import CEaselSQLite

/// A prepared statement. Parameters are 1-based, columns 0-based, as in
/// SQLite's C API.
final class Statement {
    private let pointer: OpaquePointer
    private unowned let database: Database
    let sql: String

    init(_ pointer: OpaquePointer, database: Database, sql: String) {
        self.pointer = pointer
        self.database = database
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(pointer)
    }

    func reset() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
    }

    /// Binding fails only for a programming error (a parameter index out
    /// of range) or a value SQLite cannot hold (over its length limit);
    /// either way the statement must not run with a parameter left unset.
    func bind(_ index: Int32, _ value: Int64) throws(StoreError) {
        try check(sqlite3_bind_int64(pointer, index, value), binding: index)
    }

    /// Binds the whole string, NUL bytes included: SQLite keeps the length
    /// it is given, and `text(_:)` reads it back by length.
    func bind(_ index: Int32, _ value: String) throws(StoreError) {
        var text = value
        let code = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { characters in
                characters.count > Int(Int32.max)
                    ? SQLITE_TOOBIG : easel_sqlite_bind_text(pointer, index, characters.baseAddress, Int32(characters.count))
            }
        }
        try check(code, binding: index)
    }

    func bind(_ index: Int32, _ bytes: [UInt8]) throws(StoreError) {
        let code = bytes.withUnsafeBytes { buffer in
            buffer.count > Int(Int32.max)
                ? SQLITE_TOOBIG : easel_sqlite_bind_blob(pointer, index, buffer.baseAddress, Int32(buffer.count))
        }
        try check(code, binding: index)
    }

    private func check(_ code: Int32, binding index: Int32) throws(StoreError) {
        guard code != SQLITE_OK else { return }
        throw StoreError(.sqlite(code: code), "cannot bind parameter \(index): \(database.lastMessage)", sql: sql)
    }

    /// Steps once: true when a row is ready, false when done. On an error
    /// the statement is reset, so it holds no read snapshot open.
    @discardableResult
    func step() throws(StoreError) -> Bool {
        switch sqlite3_step(pointer) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = StoreError(.sqlite(code: code), database.lastMessage, sql: sql)
            sqlite3_reset(pointer)
            throw error
        }
    }

    /// A column the store wrote as a non-negative integer (a position, a
    /// counter); anything else means the file was damaged or tampered with.
    func unsigned(_ column: Int32) throws(StoreError) -> UInt64 {
        let value = sqlite3_column_int64(pointer, column)
        guard let unsigned = UInt64(exactly: value) else {
            throw StoreError(.corruptPayload, "a negative value (\(value)) where a position or counter belongs")
        }
        return unsigned
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(pointer, column)
    }

    /// The whole text, by its length: a C string would stop at a NUL.
    func text(_ column: Int32) -> String {
        // The pointer first, then the length, as SQLite's documentation asks.
        guard let text = sqlite3_column_text(pointer, column) else { return "" }
        let count = Int(sqlite3_column_bytes(pointer, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// A copy: SQLite's pointer dies at the next step or reset.
    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(pointer, column))
        guard count > 0, let bytes = sqlite3_column_blob(pointer, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: bytes, count: count))
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(pointer, column) == SQLITE_NULL
    }
}
