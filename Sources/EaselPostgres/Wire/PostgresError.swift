/// A failure talking to PostgreSQL, or one it reported.
public struct PostgresError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// The connection could not be made, or broke: the server is down,
        /// restarting, or unreachable. Worth trying again on a new connection.
        case connection
        /// The server refused a statement; the SQLSTATE says why.
        case server(sqlState: String)
        /// What is stored does not read: a gap in a log, an op that does
        /// not decode, a format this Easel does not know.
        case corrupt
        /// An answer of a shape the caller did not expect (a column missing,
        /// a value of the wrong size): a bug, or a schema from elsewhere.
        case unexpected
        /// What an operator asked cannot be done to the database as it
        /// stands (a document a live node serves, one that exists already,
        /// a log that does not read): nothing was changed.
        case refused
    }

    public var reason: Reason
    public var message: String
    /// The statement, for the log (parameters are never included).
    public var sql: String?

    public init(_ reason: Reason, _ message: String, sql: String? = nil) {
        self.reason = reason
        self.message = message
        self.sql = sql
    }

    public var sqlState: String? {
        if case .server(let state) = reason { state } else { nil }
    }

    /// 23505: a unique or primary-key constraint refused a row.
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// Class 08 (connection exception) and the states a server shutting
    /// down or restarting sends (57P01 admin shutdown, 57P02 crash
    /// shutdown, 57P03 cannot connect now), as well as a connection libpq
    /// found broken: a new connection may well succeed.
    public var isConnectionLost: Bool {
        switch reason {
        case .connection: true
        case .server(let state): state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
        case .corrupt, .unexpected, .refused: false
        }
    }

    /// 40001 and 40P01: the server rolled the transaction back to resolve a
    /// conflict with another one; running it again is the cure.
    public var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    public var description: String {
        let state = sqlState.map { " (SQLSTATE \($0))" } ?? ""
        let statement = sql.map { " in: \($0.split(separator: "\n").joined(separator: " "))" } ?? ""
        return "\(message)\(state)\(statement)"
    }
}
