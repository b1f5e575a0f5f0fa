import ArgumentParser
import EaselPostgres
import EaselProtocol
import EaselStore
import Foundation

/// The options every command that opens a database shares.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: "The SQLite database file.")
    var db = "easel.db"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A cluster's PostgreSQL database instead of --db.",
            valueName: "postgres://…"))
    var store: String?

    /// The SQLite file, for the commands that only work on one.
    func open(for command: String = "this command") throws -> OpStore {
        try requireSQLite(command)
        guard FileManager.default.fileExists(atPath: db) else {
            throw CommandError("no database at \(db)")
        }
        return try OpStore(path: db)
    }

    /// Refuses `--store` for a command that works on a SQLite file only.
    func requireSQLite(_ command: String) throws {
        if store != nil {
            throw CommandError(
                "\(command) works on a SQLite file only: back the document up (easel db backup --store …) and use the backup"
            )
        }
    }

    /// The SQLite file, or the PostgreSQL database `--store` names; with
    /// `migrating`, a PostgreSQL database no node has opened yet gets
    /// Easel's tables (a command that writes documents may be its first).
    func openEither(migrating: Bool = false) throws -> AdminDatabase {
        guard let store else { return .sqlite(try open()) }
        guard store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") else {
            throw ValidationError("--store takes a PostgreSQL URL (postgres://…); the SQLite file is --db")
        }
        do {
            return .postgres(try PostgresStore(url: store, migrating: migrating))
        } catch {
            throw CommandError("cannot use the PostgreSQL database \(PostgresConnection.redacted(store)): \(error)")
        }
    }
}

/// A database `easel db` and `easel log` read: the SQLite file, or a
/// cluster's PostgreSQL.
enum AdminDatabase {
    case sqlite(OpStore)
    case postgres(PostgresStore)

    func listDocuments() throws -> [DocumentSummary] {
        switch self {
        case .sqlite(let store): try store.listDocuments()
        case .postgres(let store): try store.listDocuments()
        }
    }

    func snapshot(_ document: String, at now: Int64) throws -> UInt64 {
        switch self {
        case .sqlite(let store): try store.snapshot(document, at: now)
        case .postgres(let store): try store.snapshot(document, at: now)
        }
    }

    func load(_ document: String) throws -> CommittedHistory {
        switch self {
        case .sqlite(let store): try store.load(document)
        case .postgres(let store): try store.load(document)
        }
    }

    func exportLog(_ document: String, write: (String) throws -> Void) throws {
        switch self {
        case .sqlite(let store): try store.exportLog(document, write: write)
        case .postgres(let store): try store.exportLog(document, write: write)
        }
    }

    func compact(_ document: String) throws -> Int {
        switch self {
        case .sqlite(let store): try store.compact(document)
        case .postgres(let store): try store.compact(document)
        }
    }

    func deleteDocument(_ document: String) throws {
        switch self {
        case .sqlite(let store): try store.deleteDocument(document)
        case .postgres(let store): try store.deleteDocument(document)
        }
    }

    func importLog(_ lines: [String], as document: String, replace: Bool, at now: Int64) throws -> ImportSummary {
        switch self {
        case .sqlite(let store): try store.importLog(lines, as: document, replace: replace, at: now)
        case .postgres(let store): try store.importLog(lines, as: document, replace: replace, at: now)
        }
    }

    func restore(_ document: String, from backup: String, at now: Int64) throws -> ImportSummary {
        switch self {
        case .sqlite(let store): try store.restore(document, from: backup, at: now)
        case .postgres(let store): try store.restore(document, from: backup, at: now)
        }
    }

    func collectBlobs(graceStart: Int64) throws -> BlobCollection {
        switch self {
        case .sqlite(let store):
            try BlobStore(besideDatabase: store.path).collect(referencedBy: store, graceStart: graceStart)
        case .postgres(let store): try store.collectBlobs(graceStart: graceStart)
        }
    }
}

/// A failure at run time (not a mistake in the command line): printed as
/// "Error: …" with exit status 1, without the usage text.
struct CommandError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

var nowMilliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

extension StoreError: LocalizedError {
    public var errorDescription: String? { description }
}
