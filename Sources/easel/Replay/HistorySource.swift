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
    /// A document's history from its database: every op kept, from the
    /// snapshot they start from when older ones were compacted away.
    static func load(from store: OpStore, document name: String) throws -> OpHistory {
        guard try store.documentInfo(name) != nil else { throw CommandError("no document \(name) in the database") }
        let kept = try store.keptHistory(of: name)
        return OpHistory(name: name, base: kept.base, ops: kept.ops)
    }
}
