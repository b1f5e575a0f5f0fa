import CLibPQ
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to PostgreSQL through libpq, for one thread at a time:
/// statements are prepared once (on first use) and run with binary
/// parameters and results; a pipeline sends many statements and a sync in
/// one write, so a group of appends costs one round trip and one commit.
///
/// It never reconnects by itself: a broken connection throws
/// `isConnectionLost` errors, and its owner opens another (`isBroken`).
public final class PostgresConnection {
    private let handle: OpaquePointer
    /// Every statement this connection has prepared, by its text.
    private var prepared: [String: String] = [:]
    private var statementsNamed = 0
    private var parameters = PostgresParameters()

    /// Connects to `url` (`postgres://user@host:port/database`, or any
    /// libpq connection string) and runs `setup` (`SET …` statements).
    public init(url: String, setup: [String] = []) throws(PostgresError) {
        guard let handle = PQconnectdb(url) else {
            throw PostgresError(.connection, "libpq could not allocate a connection")
        }
        self.handle = handle
        guard PQstatus(handle) == CONNECTION_OK else {
            // Every property is set: the deinit runs, and finishes the handle.
            throw PostgresError(.connection, "cannot connect to \(Self.redacted(url)): \(Self.message(of: handle))")
        }
        // Notices ("relation already exists, skipping") are not errors, and
        // libpq would print them on standard error.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        for statement in setup { try execute(statement) }
    }

    deinit {
        PQfinish(handle)
    }

    /// Set when the connection is left in a state no statement can use
    /// (pipeline mode that would not end).
    private var unusable = false

    /// Whether the connection has broken: every statement will fail.
    public var isBroken: Bool { unusable || PQstatus(handle) != CONNECTION_OK }

    /// The server's process serving this connection (`pg_backend_pid()`).
    public var backendProcess: Int32 { PQbackendPID(handle) }

    /// Runs statements without parameters, one or several separated by
    /// semicolons (a schema's migration), and discards what they return.
    public func execute(_ sql: String) throws(PostgresError) {
        guard let result = PQexec(handle, sql) else { throw lost(sql) }
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// Runs one statement with parameters the closure appends.
    @discardableResult
    public func query(_ sql: String, _ bind: (inout PostgresParameters) -> Void = { _ in }) throws(PostgresError)
        -> PostgresRows
    {
        parameters.removeAll()
        bind(&parameters)
        let name = try prepare(sql)
        let (handle, count) = (handle, Int32(parameters.count))
        let result = try parameters.withLibPQArrays { _, values, lengths, formats throws(PostgresError) in
            PQexecPrepared(handle, name, count, values, lengths, formats, 1)
        }
        guard let result else { throw lost(sql) }
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        return PostgresRows(result, sql: sql)
    }

    /// Runs statements in a transaction of their own, `BEGIN` and `COMMIT`
    /// included: rolled back if `body` throws.
    public func transaction<T>(_ body: () throws(PostgresError) -> T) throws(PostgresError) -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if !isBroken { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: Pipelines

    /// Sends what `send` queues, then a sync, in one write, and reads every
    /// answer: one result per statement queued, in order. After a statement
    /// fails, the server skips the rest up to the sync (their results say
    /// so), and a transaction open then is rolled back.
    ///
    /// libpq's blocking mode is used: while a write blocks on a full
    /// socket, libpq reads what the server sent meanwhile, so neither side
    /// waits on the other for good.
    public func pipeline(_ send: (inout PipelineQueue) throws(PostgresError) -> Void) throws(PostgresError)
        -> [Result<PostgresRows, PostgresError>]
    {
        guard PQenterPipelineMode(handle) == 1 else {
            throw PostgresError(.unexpected, "cannot enter pipeline mode: \(Self.message(of: handle))")
        }
        var queue = PipelineQueue(connection: self)
        // Left in pipeline mode (answers unread after a failure), the
        // connection would refuse every later statement: its owner must
        // replace it.
        defer { if PQexitPipelineMode(handle) != 1 { unusable = true } }
        try send(&queue)
        guard PQpipelineSync(handle) == 1 else { throw lost("(pipeline sync)") }
        var results: [Result<PostgresRows, PostgresError>] = []
        results.reserveCapacity(queue.statements.count)
        for statement in queue.statements {
            guard let result = PQgetResult(handle) else { throw lost(statement.sql) }
            // The end of this statement's results.
            while let extra = PQgetResult(handle) { PQclear(extra) }
            if statement.isPreparation {
                if PQresultStatus(result) != PGRES_COMMAND_OK { prepared[statement.sql] = nil }
                PQclear(result)
                continue
            }
            do {
                try check(result, sql: statement.sql)
                results.append(.success(PostgresRows(result, sql: statement.sql)))
            } catch {
                PQclear(result)
                results.append(.failure(error))
            }
        }
        // The sync's own result closes the pipeline.
        while true {
            guard let result = PQgetResult(handle) else {
                if isBroken { throw lost("(pipeline sync)") }
                continue
            }
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        return results
    }

    /// Statements on their way into a pipeline; each is prepared in the
    /// same pipeline the first time the connection sees it.
    public struct PipelineQueue: ~Copyable {
        fileprivate let connection: PostgresConnection
        fileprivate var statements: [(sql: String, isPreparation: Bool)] = []

        fileprivate init(connection: PostgresConnection) {
            self.connection = connection
        }

        public mutating func send(_ sql: String, _ bind: (inout PostgresParameters) -> Void = { _ in })
            throws(PostgresError)
        {
            connection.parameters.removeAll()
            bind(&connection.parameters)
            let (handle, count) = (connection.handle, Int32(connection.parameters.count))
            let name: String
            if let known = connection.prepared[sql] {
                name = known
            } else {
                name = connection.nameStatement()
                let sent = try connection.parameters.withLibPQArrays { types, _, _, _ in
                    PQsendPrepare(handle, name, sql, count, types)
                }
                guard sent == 1 else { throw connection.lost(sql) }
                connection.prepared[sql] = name
                statements.append((sql, true))
            }
            let sent = try connection.parameters.withLibPQArrays { _, values, lengths, formats in
                PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1)
            }
            guard sent == 1 else { throw connection.lost(sql) }
            statements.append((sql, false))
        }
    }

    // MARK: Notifications

    /// The connection's socket, for waiting on notifications with `poll`.
    public var socket: Int32 { PQsocket(handle) }

    /// Waits until the server sends something or `milliseconds` pass, then
    /// returns the notifications (`LISTEN`) that arrived: channel and payload.
    public func notifications(waitingUpTo milliseconds: Int32) throws(PostgresError) -> [(
        channel: String, payload: String
    )] {
        var waiting = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        if milliseconds > 0 { _ = poll(&waiting, 1, milliseconds) }
        guard PQconsumeInput(handle) == 1 else { throw lost("(reading notifications)") }
        var arrived: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            arrived.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return arrived
    }

    // MARK: Errors

    private func prepare(_ sql: String) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = nameStatement()
        let (handle, count) = (handle, Int32(parameters.count))
        let result = try parameters.withLibPQArrays { types, _, _, _ in
            PQprepare(handle, name, sql, count, types)
        }
        guard let result else { throw lost(sql) }
        defer { PQclear(result) }
        try check(result, sql: sql)
        prepared[sql] = name
        return name
    }

    /// A name no statement of this connection has had.
    fileprivate func nameStatement() -> String {
        statementsNamed += 1
        return "easel_\(statementsNamed)"
    }

    private func check(_ result: OpaquePointer, sql: String) throws(PostgresError) {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY, PGRES_SINGLE_TUPLE:
            return
        case PGRES_PIPELINE_ABORTED:
            throw PostgresError(
                .server(sqlState: "25P02"), "skipped: an earlier statement in the pipeline failed", sql: sql)
        default:
            let state = easel_pq_sqlstate(result).map { String(cString: $0) }
            let message = easel_pq_primary_message(result).map { String(cString: $0) } ?? Self.message(of: handle)
            if let state { throw PostgresError(.server(sqlState: state), message, sql: sql) }
            throw PostgresError(.connection, message, sql: sql)
        }
    }

    /// What a call that returned nothing means: the connection broke.
    fileprivate func lost(_ sql: String) -> PostgresError {
        PostgresError(.connection, "the connection to PostgreSQL failed: \(Self.message(of: handle))", sql: sql)
    }

    private static func message(of handle: OpaquePointer) -> String {
        guard let text = PQerrorMessage(handle) else { return "no message" }
        let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? "no message" : message
    }

    /// The connection string without its password, for errors and logs.
    public static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else {
            return url
        }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return url[..<colon] + ":…" + url[at...]
    }
}
