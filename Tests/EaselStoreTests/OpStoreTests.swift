import EaselLocking
import EaselModel
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

@testable import EaselStore

@Suite("Op store")
struct OpStoreTests {
    let file = TemporaryDatabase()
    let epoch = Epoch(rawValue: 0xE90C)

    func openStore(_ durability: Durability = .full) throws -> OpStore {
        let store = try OpStore(path: file.path, durability: durability)
        try store.createDocument("board", epoch: epoch, at: now)
        return store
    }

    @Test func appendedOpsReadBackInOrderWithAuthorAndTime() throws {
        let store = try openStore()
        let history = StoreHistory(seed: 1).positioned()
        try store.append(Array(history[..<50]), to: "board")
        try store.append(Array(history[50...]), to: "board")
        #expect(try store.ops(of: "board", after: 0) == history)
        #expect(try store.ops(of: "board", after: 100) == Array(history[100...]))
        #expect(try store.ops(of: "board", after: 10, limit: 5) == Array(history[10..<15]))
        #expect(try store.head(of: "board") == UInt64(history.count))
        #expect(try store.op(of: "board", id: history[7].op.id) == history[7])
    }

    @Test func anAuthorWithANulByteIsStoredWholeNotCutAtIt() throws {
        let store = try openStore()
        var history = StoreHistory(seed: 4).positioned()
        history[0].author = "ada\u{0}lovelace 🧮"
        try store.append([history[0]], to: "board")
        #expect(try store.ops(of: "board", after: 0).map(\.author) == ["ada\u{0}lovelace 🧮"])
    }

    @Test func aParameterThatDoesNotBindIsAnErrorNamingTheStatementNotAnUnsetValue() throws {
        let database = try Database(path: file.path)
        let statement = try database.statement("SELECT ?1")
        do {
            try statement.bind(2, "two")
            Issue.record("binding parameter 2 of one succeeded")
        } catch {
            #expect(error.reason == .sqlite(code: 25))  // SQLITE_RANGE
            #expect(error.sql == "SELECT ?1")
        }
    }

    @Test func anOpTheLogAlreadyHasIsAnErrorAndTheBatchAppendsNothing() throws {
        let store = try openStore()
        let history = StoreHistory(seed: 2).positioned()
        try store.append(Array(history[..<10]), to: "board")
        var resent = history[10]
        resent.op = history[3].op
        do {
            try store.append([resent, history[11]], to: "board")
            Issue.record("a duplicate op was appended")
        } catch {
            #expect(error.reason == .duplicateOp)
            #expect(error.document == "board" && error.position == 11)
        }
        #expect(try store.head(of: "board") == 10)
    }

    @Test func batchesOfEveryLengthAroundTheMultiRowInsertSizesReadBackWholeAndInOrder() throws {
        let store = try openStore()
        let history = StoreHistory(seed: 5, length: 1_000).positioned()
        var next = 0
        // Around the rows one insert statement takes (64, 32, … 1), and across them.
        for length in [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 72, 127, 129, 200] {
            try store.append(Array(history[next..<next + length]), to: "board")
            next += length
            #expect(try store.head(of: "board") == UInt64(next))
        }
        #expect(try store.ops(of: "board", after: 0) == Array(history[..<next]))
    }

    @Test(arguments: [40, 70, 99])
    func anOpTheLogAlreadyHasDeepInALongBatchIsNamedByItsOwnPositionAndTheBatchAppendsNothing(at index: Int) throws {
        let store = try openStore()
        let history = StoreHistory(seed: 6, length: 200).positioned()
        try store.append(Array(history[..<10]), to: "board")
        var batch = Array(history[10..<110])
        batch[index].op = history[3].op
        do {
            try store.append(batch, to: "board")
            Issue.record("a duplicate op was appended")
        } catch {
            #expect(error.reason == .duplicateOp)
            #expect(error.position == batch[index].position)
            #expect(error.message.contains("\(history[3].op.id)"))
        }
        #expect(try store.head(of: "board") == 10)
        #expect(try store.ops(of: "board", after: 0) == Array(history[..<10]))
    }

    @Test func aGapInPositionsIsAnErrorNeverASilentHole() throws {
        let store = try openStore()
        let history = StoreHistory(seed: 3).positioned()
        try store.append(Array(history[..<5]), to: "board")
        for batch in [[history[6]], [history[5], history[7]]] {
            do {
                try store.append(batch, to: "board")
                Issue.record("a gap was accepted")
            } catch {
                #expect(error.reason == .positionGap)
            }
        }
        #expect(try store.head(of: "board") == 5)
    }

    @Test func snapshotPlusTailLoadsTheStateOfAFullReplay() throws {
        for seed in propertySeeds(count: 20, label: "store snapshot + tail") {
            let file = TemporaryDatabase()
            let store = try OpStore(path: file.path)
            try store.createDocument("board", epoch: epoch, at: now)
            let history = StoreHistory(seed: seed).positioned()
            var random = SeededRandom(seed: seed)
            let cut = Int.random(in: 0...history.count, using: &random)
            try store.append(Array(history[..<cut]), to: "board")
            try store.snapshot("board", at: now)
            // After the snapshot: the rest, plus stale ops resent under new
            // positions would be refused as duplicates, so the tail here is
            // the rest of the history, in the order the server took it.
            try store.append(Array(history[cut...]), to: "board")

            let loaded = try store.load("board")
            #expect(loaded.snapshot?.position == UInt64(cut), "EASEL_SEED=\(seed)")
            #expect(loaded.tail.count == history.count - cut)
            let full = Document(applying: history.map(\.op))
            #expect(loaded.document().canonicalEncoding == full.canonicalEncoding, "EASEL_SEED=\(seed)")

            // Stale and out-of-order ops a client applies after loading
            // change nothing a full replay would not.
            var client = loaded.document()
            for stored in history.shuffled(using: &random).prefix(30) { client.apply(stored.op) }
            #expect(client.canonicalEncoding == full.canonicalEncoding, "EASEL_SEED=\(seed)")
        }
    }

    @Test func compactionDropsCoveredOpsButKeepsEveryReplicasHighWaterCounter() throws {
        let store = try openStore()
        let history = StoreHistory(seed: 4).positioned()
        try store.append(Array(history[..<80]), to: "board")
        let before = try store.highWaterCounters(of: "board")
        try store.snapshot("board", at: now)
        #expect(try store.compact("board") == 80)
        #expect(try store.ops(of: "board", after: 0).isEmpty)
        #expect(try store.highWaterCounters(of: "board") == before)
        #expect(try store.head(of: "board") == 80)

        try store.append(Array(history[80...]), to: "board")
        var expected = before
        for stored in history[80...] {
            expected[stored.op.id.replica] = max(expected[stored.op.id.replica] ?? 0, stored.op.id.counter)
        }
        #expect(try store.highWaterCounters(of: "board") == expected)
        let full = Document(applying: history.map(\.op))
        #expect(try store.load("board").document().canonicalEncoding == full.canonicalEncoding)
    }

    /// `easel db compact` runs in another process while the server loads:
    /// a load must read its snapshot and the ops after it in one view, or a
    /// compaction between the two reads leaves it a log that skips.
    @Test func aLoadReadsOneViewWhileAnotherConnectionSnapshotsAndCompacts() throws {
        let history = StoreHistory(seed: 9, length: 6_000).positioned()
        let start = 2_000
        let setUp = try openStore(.normal)
        try setUp.append(Array(history[..<start]), to: "board")
        try setUp.snapshot("board", at: now)
        let reader = try OpStore(path: file.path, durability: .normal)

        let path = file.path
        let done = Locked(false)
        let finished = DispatchSemaphore(value: 0)
        Thread { [history] in
            defer {
                done.withLock { $0 = true }
                finished.signal()
            }
            // Each step its own commit, as separate `easel db` runs are.
            do {
                let writer = try OpStore(path: path, durability: .normal)
                for first in stride(from: start, to: history.count, by: 25) {
                    try writer.append(Array(history[first..<min(first + 25, history.count)]), to: "board")
                    try writer.snapshot("board", at: now)
                    try writer.compact("board")
                }
            } catch {
                Issue.record("the compacting connection failed: \(error)")
            }
        }.start()

        // Each load checks that its tail follows its snapshot, and throws
        // when it does not; the state is compared once, at the end.
        var heads: [UInt64] = []
        var failure: StoreError?
        while failure == nil, !done.withLock({ $0 }) {
            do throws(StoreError) {
                heads.append(try reader.load("board").head)
            } catch {
                failure = error
            }
        }
        finished.wait()
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(heads == heads.sorted() && Set(heads).count > 1, "\(heads)")
        #expect(
            try reader.load("board").document().canonicalEncoding
                == Document(applying: history.map(\.op)).canonicalEncoding)
    }

    @Test func aDatabaseFromANewerSchemaIsRefusedWithAClearMessage() throws {
        do {
            let store = try openStore()
            try store.database.execute("PRAGMA user_version = 99")
        }
        do {
            _ = try OpStore(path: file.path)
            Issue.record("a newer schema was opened")
        } catch {
            #expect(error.reason == .newerSchema(found: 99, supported: Schema.opLog.version))
            #expect(error.message.contains("upgrade Easel"))
        }
    }

    @Test func aCorruptPayloadIsReportedWithItsDocumentAndPositionAndNeverCrashesALoad() throws {
        let store = try openStore()
        try store.append(StoreHistory(seed: 5).positioned(), to: "board")
        try store.database.execute("UPDATE ops SET payload = x'0102ff' WHERE position = 17")
        do {
            _ = try store.load("board")
            Issue.record("a corrupt payload loaded")
        } catch {
            #expect(error.reason == .corruptPayload)
            #expect(error.document == "board" && error.position == 17)
        }
    }

    @Test(arguments: Durability.allCases)
    func theDurabilitySettingIsTheSynchronousPragma(durability: Durability) throws {
        let store = try openStore(durability)
        #expect(try store.database.pragma("synchronous") == (durability == .full ? "2" : "1"))
        #expect(try store.database.pragma("journal_mode") == "wal")
    }

    @Test func documentsAreListedWithTheirHeadsAndCanBeDeleted() throws {
        let store = try openStore()
        try store.createDocument("another", epoch: Epoch(rawValue: 2), at: now)
        try store.append(StoreHistory(seed: 6, length: 30).positioned(), to: "board")
        let listed = try store.listDocuments()
        #expect(listed.map(\.info.name) == ["another", "board"])
        #expect(listed.map(\.head) == [0, 30])
        try store.deleteDocument("board")
        #expect(try store.listDocuments().map(\.info.name) == ["another"])
        #expect(throws: StoreError.self) { try store.load("board") }
    }
}
