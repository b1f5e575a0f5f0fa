import EaselModel
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

@testable import EaselStore

@Suite("Backup and restore", .serialized)
struct BackupTests {
    let file = TemporaryDatabase()

    @Test func aBackupTakenWhileAnotherProcessWritesIsConsistent() throws {
        let writer = Process()
        writer.executableURL = try CrashHarness.probe()
        writer.arguments = [file.path]
        writer.standardOutput = FileHandle.nullDevice
        try writer.run()
        defer {
            // SIGKILL: the test runner's children may have SIGTERM blocked.
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
        }
        // Back up once the writer is writing, however slowly it started.
        let watcher = try OpStore(path: file.path)
        for _ in 0..<500 {
            if try watcher.documentInfo("crash") != nil, try watcher.head(of: "crash") > 100 { break }
            usleep(20_000)
        }
        let backupPath = file.folder.appendingPathComponent("backup.db").path
        try OpStore(path: file.path).backup(to: backupPath)

        let backup = try OpStore(path: backupPath)
        let loaded = try backup.load("crash")
        let positions = try backup.ops(of: "crash", after: 0).map(\.position)
        #expect(!positions.isEmpty)
        #expect(positions == Array(1...UInt64(positions.count)))
        #expect(loaded.head == UInt64(positions.count))
    }

    @Test func restoringOneDocumentFromABackupReplacesItsHistoryUnderANewEpoch() throws {
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 3), at: now)
        let history = StoreHistory(seed: 12, length: 60).positioned()
        try store.append(Array(history[..<40]), to: "board")
        let backupPath = file.folder.appendingPathComponent("backup.db").path
        try store.backup(to: backupPath)
        try store.append(Array(history[40...]), to: "board")

        let summary = try store.restore("board", from: backupPath, at: now)
        #expect(summary.head == 40)
        #expect(summary.epoch != Epoch(rawValue: 3))
        #expect(try store.documentInfo("board")?.epoch == summary.epoch)
        #expect(
            try store.load("board").document().canonicalEncoding
                == Document(applying: history[..<40].map(\.op)).canonicalEncoding)
    }
}
