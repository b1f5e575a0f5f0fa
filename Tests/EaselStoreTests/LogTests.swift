import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

@testable import EaselStore

@Suite("Log export and import")
struct LogTests {
    let file = TemporaryDatabase()

    func storeWithHistory(compactAt cut: Int? = nil) throws -> (OpStore, [StoredOp]) {
        let store = try OpStore(path: file.path)
        try store.createDocument("board", epoch: Epoch(rawValue: 7), at: now)
        let history = StoreHistory(seed: 11, length: 150).positioned()
        if let cut {
            try store.append(Array(history[..<cut]), to: "board")
            try store.snapshot("board", at: now)
            try store.compact("board")
            try store.append(Array(history[cut...]), to: "board")
        } else {
            try store.append(history, to: "board")
        }
        return (store, history)
    }

    func export(_ store: OpStore, _ name: String = "board") throws -> [String] {
        var lines: [String] = []
        try store.exportLog(name) { lines.append($0) }
        return lines
    }

    @Test(arguments: [nil, 90])
    func exportThenImportReproducesTheDocument(compactedAt cut: Int?) throws {
        let (store, history) = try storeWithHistory(compactAt: cut)
        let lines = try export(store)
        #expect(lines.first?.hasPrefix(#"{"log":"easel","version":1"#) == true)
        #expect(lines.dropFirst().first?.hasPrefix(#"{"snapshot":"#) == (cut != nil))

        let summary = try store.importLog(lines, as: "copy", replace: false, at: now)
        #expect(summary.head == UInt64(history.count))
        let original = try store.load("board")
        let copy = try store.load("copy")
        #expect(copy.document().canonicalEncoding == original.document().canonicalEncoding)
        #expect(copy.tail.isEmpty, "the copy is stored with a snapshot at its head")
        #expect(try store.latestSnapshotPosition(of: "copy") == summary.head)
        #expect(copy.highWater == original.highWater)
        #expect(copy.epoch != original.epoch)
        #expect(try export(store, "copy").dropFirst() == lines.dropFirst())
    }

    @Test func theKeptHistoryStartsAtTheSnapshotTheCompactionKeptAndAHoleInItIsRefused() throws {
        let (store, history) = try storeWithHistory(compactAt: 90)
        // As the server leaves a document it unloads: a later snapshot.
        try store.snapshot("board", at: now)
        let kept = try store.keptHistory(of: "board")
        #expect(kept.base?.position == 90)
        #expect(kept.ops == Array(history[90...]))

        try store.database.execute("DELETE FROM ops WHERE position = 120")
        #expect(throws: StoreError.self) { try store.keptHistory(of: "board") }
    }

    @Test func importRefusesAnExistingDocumentUnlessAskedToReplaceIt() throws {
        let (store, _) = try storeWithHistory()
        let lines = try export(store)
        do {
            _ = try store.importLog(lines, as: "board", replace: false, at: now)
            Issue.record("an existing document was overwritten")
        } catch {
            #expect(error.reason == .documentExists)
        }
        let before = try #require(try store.documentInfo("board")).epoch
        let summary = try store.importLog(Array(lines.prefix(50)), as: "board", replace: true, at: now)
        #expect(summary.epoch != before)
        #expect(try store.documentInfo("board")?.epoch == summary.epoch)
        #expect(try store.head(of: "board") == 49)
    }

    @Test func replacingADocumentIsRefusedWhileAServerServesIt() throws {
        let (store, _) = try storeWithHistory()
        let lines = try export(store)
        try store.markServing("board", at: now)
        do {
            _ = try store.importLog(lines, as: "board", replace: true, at: now)
            Issue.record("a served document was replaced")
        } catch {
            #expect(error.reason == .documentBusy)
        }
        try store.unmarkServing("board")
        #expect(throws: Never.self) { _ = try store.importLog(lines, as: "board", replace: true, at: now) }
    }

    @Test func aBadLineIsReportedWithItsNumberAndNothingIsWritten() throws {
        let (store, _) = try storeWithHistory()
        var lines = try export(store)
        lines[5] = #"{"position":"5","op":"#
        do {
            _ = try store.importLog(lines, as: "copy", replace: false, at: now)
            Issue.record("a bad log was imported")
        } catch {
            #expect(error.reason == .corruptPayload)
            #expect(error.message.hasPrefix("line 6:"))
        }
        #expect(try store.documentInfo("copy") == nil)
    }
}
