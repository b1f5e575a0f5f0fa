import ArgumentParser
import EaselModel
import EaselProtocol
import EaselStore
import Foundation

struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export, import and summarise a document's op log (JSON Lines, Docs/log-format.md).",
        subcommands: [LogExport.self, LogImport.self, LogStat.self]
    )
}

struct LogExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write a document's log to standard output as JSON Lines.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The document.") var doc: String

    func run() throws {
        let store = try database.openEither()
        let output = FileHandle.standardOutput
        try store.exportLog(doc) { line in output.write(Data((line + "\n").utf8)) }
    }
}

struct LogImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Create a document from a JSON Lines log read from standard input.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The document to create.") var doc: String
    @Flag(help: "Replace an existing document's history (gives it a new epoch; refused while it is served).")
    var replace = false

    func run() throws {
        _ = try DocumentName(doc)
        // A new SQLite file is created: importing is how a database starts.
        let store =
            database.store == nil ? .sqlite(try OpStore(path: database.db)) : try database.openEither(migrating: true)
        var lines: [String] = []
        while let line = readLine(strippingNewline: true) { lines.append(line) }
        let summary = try store.importLog(lines, as: doc, replace: replace, at: nowMilliseconds)
        print(
            "imported \(summary.ops) ops into \(summary.document) (head \(summary.head), epoch \(summary.epoch)"
                + (summary.snapshotPosition.map { ", from a snapshot at \($0)" } ?? "") + ")")
    }
}

struct LogStat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stat", abstract: "Summarise a document's log: ops, authors, time span, state hash.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The document.") var doc: String

    func run() throws {
        let loaded = try database.openEither().load(doc)
        let document = loaded.document()
        var byAction: [String: Int] = [:]
        var byAuthor: [String: Int] = [:]
        for stored in loaded.tail {
            byAction["\(stored.op.action)".prefix { $0 != "(" }.description, default: 0] += 1
            byAuthor[stored.author, default: 0] += 1
        }
        print("document  \(doc)  epoch \(loaded.epoch)")
        print("head      \(loaded.head)")
        if let snapshot = loaded.snapshot {
            print("snapshot  at \(snapshot.position) (\(snapshot.state.count) ops of state)")
        }
        print("log       \(loaded.tail.count) ops after the snapshot")
        print(
            "actions   " + byAction.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        print(
            "authors   "
                + byAuthor.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        print("replicas  \(loaded.highWater.count)")
        if let first = loaded.tail.first?.receivedAt, let last = loaded.tail.last?.receivedAt {
            print("received  \(Self.format(first)) … \(Self.format(last))")
        }
        print("entities  \(document.visibleCount) visible of \(document.knownEntities.count)")
        print("state     \(document.stateHash.hex) \(document.stateHash.emojiKey)")
    }

    static func format(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
