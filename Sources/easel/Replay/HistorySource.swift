import EaselProtocol
import EaselReplay
import EaselStore
import Foundation

/// Where a history comes from: a database file (which document: `--doc`, or
/// its only one) or a JSON Lines log. A file is taken for a database when
/// it starts with SQLite's header, whatever its name.
enum HistorySource {
    static func load(path: String, document: String?) throws -> OpHistory {
        guard let file = FileHandle(forReadingAtPath: path) else { throw CommandError("cannot read \(path)") }
        let start = (try? file.read(upToCount: 16)) ?? Data()
        try? file.close()
        if start == Data("SQLite format 3\0".utf8) {
            return try loadDatabase(path: path, document: document)
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CommandError("\(path) is neither an Easel database nor a UTF-8 JSON Lines log")
        }
        do {
            return try OpHistory.read(
                jsonLines: text.split(separator: "\n", omittingEmptySubsequences: false).lazy.map(String.init))
        } catch {
            throw CommandError("\(path): \(error)")
        }
    }

    static func loadDatabase(path: String, document: String?) throws -> OpHistory {
        guard FileManager.default.fileExists(atPath: path) else { throw CommandError("no database at \(path)") }
        let store = try OpStore(readingBackupAt: path)
        if let document { return try OpHistory.load(from: store, document: document) }
        let names = try store.listDocuments().map(\.info.name)
        guard names.count == 1, let only = names.first else {
            throw CommandError(
                names.isEmpty
                    ? "\(path) holds no documents"
                    : "\(path) holds \(names.count) documents; name one with --doc: \(names.prefix(10).joined(separator: ", "))"
            )
        }
        return try OpHistory.load(from: store, document: only)
    }
}

extension OpHistory {
    /// A document's history from its database: every op, or the latest
    /// snapshot and the ops after it when the log was compacted.
    static func load(from store: OpStore, document name: String) throws -> OpHistory {
        guard try store.documentInfo(name) != nil else { throw CommandError("no document \(name) in the database") }
        let ops = try store.ops(of: name, after: 0)
        let compacted = try ops.first.map { $0.position > 1 } ?? (store.head(of: name) > 0)
        guard compacted else { return OpHistory(name: name, ops: ops) }
        // What is left starts after the snapshot the compaction kept, not
        // a later one (the server and imports take those at heads).
        let head = try store.head(of: name)
        let base = try store.latestSnapshot(of: name, atOrBefore: (ops.first?.position ?? head + 1) - 1)
        let start = (base?.position ?? 0) + 1
        if let first = ops.first?.position, first != start {
            throw CommandError("the log of \(name) skips from position \(start - 1) to \(first)")
        }
        return OpHistory(name: name, base: base, ops: ops)
    }
}
