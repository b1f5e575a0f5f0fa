import EaselLocking
import EaselModel
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

@testable import EaselStore

/// Regressions from the storage review: what a damaged file, a failed
/// import, another process or an impossible path must not do.
@Suite("Damaged databases and other processes")
struct DamagedDatabaseTests {
    let file = TemporaryDatabase()

    @Test func aDocumentsIdIsNeverTakenFromAStaleCache() throws {
        let store = try OpStore(path: file.path)
        let history = StoreHistory(seed: 13, length: 10).positioned()
        // A failed import creates "a" and rolls it back…
        var lines = [OpLogJSON.encode(.header(.init(document: "a", epoch: Epoch(rawValue: 1))))]
        lines += history.map { OpLogJSON.encode(.op($0)) }
        lines.append("not json")
        #expect(throws: StoreError.self) { _ = try store.importLog(lines, as: "a", replace: false, at: now) }
        // …so "b" takes the id "a" had; "a" made again must get its own.
        try store.createDocument("b", epoch: Epoch(rawValue: 2), at: now)
        try store.createDocument("a", epoch: Epoch(rawValue: 3), at: now)
        try store.append(history, to: "a")
        #expect(try store.head(of: "a") == 10)
        #expect(try store.head(of: "b") == 0)
    }

    @Test func openingAnImpossiblePathFailsCleanly() {
        #expect(throws: StoreError.self) { _ = try OpStore(path: "/nonexistent/folder/easel.db") }
        #expect(throws: StoreError.self) {
            _ = try OpStore(readingBackupAt: file.folder.appendingPathComponent("none.db").path)
        }
        #expect(!FileManager.default.fileExists(atPath: file.folder.appendingPathComponent("none.db").path))
    }

    @Test func aNegativeOrSkippedPositionIsReportedNotTrappedOn() throws {
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: now)
        try store.append(StoreHistory(seed: 14, length: 30).positioned(), to: "board")
        try store.database.execute("UPDATE ops SET position = -1 WHERE position = 17")
        do {
            _ = try store.load("board")
            Issue.record("a damaged log loaded")
        } catch {
            #expect(error.reason == .corruptPayload)
            #expect(error.document == "board")
        }
        // A negative snapshot position, read where a position belongs.
        try store.database.execute("UPDATE ops SET position = 17 WHERE position = -1")
        try store.snapshot("board", at: now)
        try store.database.execute("PRAGMA foreign_keys = OFF")
        try store.database.execute("UPDATE snapshots SET position = -1")
        #expect(throws: StoreError.self) { _ = try store.listDocuments() }
    }

    @Test func aFailedReadLeavesNoStaleViewBehind() throws {
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 1), at: now)
        let history = StoreHistory(seed: 15, length: 30).positioned()
        try store.append(Array(history[..<20]), to: "board")
        try store.database.execute("UPDATE ops SET payload = x'00' WHERE position = 5")
        #expect(throws: StoreError.self) { _ = try store.ops(of: "board", after: 0) }
        // Another connection commits; this one must see it and still write.
        try OpStore(path: file.path).append(Array(history[20..<25]), to: "board")
        #expect(try store.head(of: "board") == 25)
        try store.append(Array(history[25...]), to: "board")
        #expect(try store.head(of: "board") == 30)
    }

    @Test func manyConnectionsOpeningANewFileAtOnceAllSucceed() {
        let path = file.path
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do {
                _ = try OpStore(path: path)
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.value == 0)
    }

    @Test func shutdownCalledFromACompletionDoesNotDeadlock() throws {
        let worker = try StorageWorker(path: file.path)
        let done = DispatchSemaphore(value: 0)
        worker.perform({ (_: OpStore) throws(StoreError) in }) { _ in
            worker.shutdown()
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        worker.shutdown()
    }
}
