import Foundation

/// A fresh SQLite file path in a temporary folder, removed (with its WAL
/// and shared-memory files) when the test is done with it.
final class TemporaryDatabase {
    let folder: URL
    var path: String { folder.appendingPathComponent("easel.db").path }

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("easel-store-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }
}
