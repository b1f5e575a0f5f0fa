/// Why the store refused or failed, with what a person needs to find the
/// cause: the document, the position, the SQLite code and the statement.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// SQLite returned an error (the extended result code).
        case sqlite(code: Int32)
        /// The database was written by a newer Easel.
        case newerSchema(found: Int32, supported: Int32)
        /// A stored payload that does not decode.
        case corruptPayload
        /// An op whose (replica, counter) is already in the document's log:
        /// the room drops duplicates first, so this is a bug, never a gap.
        case duplicateOp
        /// Positions must continue the document's log with no gap.
        case positionGap
        case unknownDocument
        /// The document exists, and the operation would have replaced it.
        case documentExists
        /// A server is serving the document.
        case documentBusy
        /// A value the store cannot hold (a counter or position ≥ 2^63).
        case outOfRange
        /// The store was closed, or its worker stopped.
        case closed
        /// A file that belongs with the database is not there (a backup's
        /// blob file).
        case missingFile
        /// A file the store would write is already there (a backup's).
        case fileExists
    }

    public var reason: Reason
    public var message: String
    public var document: String?
    public var position: UInt64?
    public var sql: String?

    public init(
        _ reason: Reason, _ message: String, document: String? = nil, position: UInt64? = nil, sql: String? = nil
    ) {
        self.reason = reason
        self.message = message
        self.document = document
        self.position = position
        self.sql = sql
    }

    public var description: String {
        var parts = [message]
        if let document { parts.append("document \(document)") }
        if let position { parts.append("position \(position)") }
        if case .sqlite(let code) = reason { parts.append("SQLite code \(code)") }
        if let sql { parts.append("in: \(sql)") }
        return parts.joined(separator: "; ")
    }

    func about(document: String? = nil, position: UInt64? = nil) -> StoreError {
        var error = self
        error.document = error.document ?? document
        error.position = error.position ?? position
        return error
    }
}
