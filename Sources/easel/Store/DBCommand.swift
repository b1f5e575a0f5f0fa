import ArgumentParser
import EaselProtocol
import EaselStore

struct DB: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Administer an Easel database: list, snapshot, compact, delete, backup, restore, gc.",
        subcommands: [
            DBList.self, DBSnapshot.self, DBCompact.self, DBDelete.self, DBBackup.self, DBRestore.self, DBCollect.self,
        ]
    )
}

struct DBList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the documents.")
    @OptionGroup var database: DatabaseOptions

    func run() throws {
        let documents = try database.openEither().listDocuments()
        print("document".padding(28) + "epoch".padding(18) + "head".padding(10) + "in log".padding(10) + "snapshot")
        for summary in documents {
            print(
                summary.info.name.padding(28) + summary.info.epoch.description.padding(18)
                    + String(summary.head).padding(10) + String(summary.opsInLog).padding(10)
                    + (summary.latestSnapshot.map(String.init) ?? "-"))
        }
    }
}

struct DBSnapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot", abstract: "Snapshot a document at its head.")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "The document.") var doc: String

    func run() throws {
        let position = try database.openEither().snapshot(doc, at: nowMilliseconds)
        print("snapshot of \(doc) at position \(position)")
    }
}

struct DBCompact: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact", abstract: "Drop the ops a document's latest snapshot covers (history is lost).")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "The document.") var doc: String

    func run() throws {
        let dropped = try database.openEither().compact(doc)
        print("dropped \(dropped) ops of \(doc)")
    }
}

struct DBDelete: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a document, its log and its snapshots.")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "The document.") var doc: String
    @Flag(help: "Confirm: the document cannot be recovered except from a backup.") var yes = false

    func run() throws {
        guard yes else { throw ValidationError("deleting \(doc) cannot be undone; add --yes to confirm") }
        try database.openEither().deleteDocument(doc)
        print("deleted \(doc)")
    }
}

struct DBBackup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database and its blob file with VACUUM INTO (safe while a server writes).")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "The backup file to write (must not exist); the blobs go to the same name with -blobs after it.")
    var to: String

    func run() throws {
        switch try database.openEither() {
        case .sqlite(let store):
            try store.backup(to: to)
            print("backed up \(database.db) to \(to) and its blobs to \(BlobStore.path(besideDatabase: to))")
        case .postgres(let store):
            let summary = try store.backup(to: to, at: nowMilliseconds)
            print(
                "backed up \(summary.documents) documents to \(to) and \(summary.blobs) blobs to "
                    + BlobStore.path(besideDatabase: to))
        }
    }
}

struct DBRestore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Restore one document from a backup, under a new epoch.")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "The backup file.") var from: String
    @Option(help: "The document.") var doc: String

    func run() throws {
        let summary = try database.openEither(migrating: true).restore(doc, from: from, at: nowMilliseconds)
        print("restored \(doc) from \(from): head \(summary.head), new epoch \(summary.epoch)")
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

struct DBCollect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove the blobs no document refers to (in its state or its retained log).",
        discussion: """
            A blob uploaded within the grace period is kept even when nothing refers to it yet: a client \
            uploads an image before it places it. Safe while a server runs.
            """)
    @OptionGroup var database: DatabaseOptions
    @Option(help: "Keep unreferenced blobs uploaded within this many seconds.") var graceSeconds: Int64 = 3600

    func run() throws {
        guard graceSeconds >= 0 else { throw ValidationError("--grace-seconds cannot be negative") }
        let result = try database.openEither().collectBlobs(graceStart: nowMilliseconds - graceSeconds * 1000)
        print(
            "removed \(result.removed) blobs (\(result.removedBytes) bytes); kept \(result.kept) referenced "
                + "and \(result.inGrace) in their grace period")
    }
}
