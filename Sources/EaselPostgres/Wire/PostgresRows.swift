import CLibPQ

/// The rows a statement returned, in binary format, read in place: a value
/// is copied out only when asked for. Owns libpq's result and frees it.
public final class PostgresRows {
    private let result: OpaquePointer
    let sql: String
    public let count: Int
    public let columns: Int

    init(_ result: OpaquePointer, sql: String) {
        self.result = result
        self.sql = sql
        count = Int(PQntuples(result))
        columns = Int(PQnfields(result))
    }

    deinit {
        PQclear(result)
    }

    /// The command tag's verb: `COMMIT`, or `ROLLBACK` for a commit of a
    /// transaction that had failed.
    public var status: String {
        PQcmdStatus(result).map { String(cString: $0) } ?? ""
    }

    /// The rows the statement changed (an INSERT's, an UPDATE's), from its
    /// command tag; 0 for a statement that reports none.
    public var changed: Int {
        guard let tag = PQcmdTuples(result) else { return 0 }
        return Int(String(cString: tag)) ?? 0
    }

    public func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(result, Int32(row), Int32(column)) != 0
    }

    public func int64(_ row: Int, _ column: Int) throws(PostgresError) -> Int64 {
        try integer(row, column, size: 8)
    }

    public func int32(_ row: Int, _ column: Int) throws(PostgresError) -> Int32 {
        Int32(truncatingIfNeeded: try integer(row, column, size: 4))
    }

    public func int16(_ row: Int, _ column: Int) throws(PostgresError) -> Int16 {
        Int16(truncatingIfNeeded: try integer(row, column, size: 2))
    }

    public func bool(_ row: Int, _ column: Int) throws(PostgresError) -> Bool {
        try integer(row, column, size: 1) != 0
    }

    public func bytes(_ row: Int, _ column: Int) throws(PostgresError) -> [UInt8] {
        let (pointer, length) = try value(row, column)
        return Array(UnsafeRawBufferPointer(start: pointer, count: length))
    }

    /// Calls `body` with the value's bytes where libpq holds them.
    public func withBytes<T>(
        _ row: Int, _ column: Int, _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        let (pointer, length) = try value(row, column)
        return try body(UnsafeRawBufferPointer(start: pointer, count: length))
    }

    public func text(_ row: Int, _ column: Int) throws(PostgresError) -> String {
        let (pointer, length) = try value(row, column)
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    private func value(_ row: Int, _ column: Int) throws(PostgresError) -> (UnsafeRawPointer?, Int) {
        guard row < count, column < columns else {
            throw PostgresError(.unexpected, "no value at row \(row), column \(column)", sql: sql)
        }
        guard !isNull(row, column) else {
            throw PostgresError(.unexpected, "NULL at row \(row), column \(column)", sql: sql)
        }
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        return (PQgetvalue(result, Int32(row), Int32(column)).map { UnsafeRawPointer($0) }, length)
    }

    private func integer(_ row: Int, _ column: Int, size: Int) throws(PostgresError) -> Int64 {
        let (pointer, length) = try value(row, column)
        guard length == size, let pointer else {
            throw PostgresError(
                .unexpected, "a value of \(length) bytes at row \(row), column \(column) where \(size) belong",
                sql: sql)
        }
        var value: Int64 = 0
        for index in 0..<size { value = value << 8 | Int64(pointer.load(fromByteOffset: index, as: UInt8.self)) }
        // Sign-extend what was narrower than 64 bits.
        let unused = Int64(64 - size * 8)
        return unused == 0 ? value : (value << unused) >> unused
    }
}
