import ArgumentParser
import EaselStore
import Foundation

/// The options every command that opens a database shares.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: "The SQLite database file.")
    var db = "easel.db"

    func open() throws -> OpStore {
        guard FileManager.default.fileExists(atPath: db) else {
            throw CommandError("no database at \(db)")
        }
        return try OpStore(path: db)
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
