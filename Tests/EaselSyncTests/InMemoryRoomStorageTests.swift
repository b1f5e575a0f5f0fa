import EaselLocking
import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Foundation
import Testing

@Suite("In-memory room storage")
struct InMemoryRoomStorageTests {
    let board: DocumentName
    let one: DocumentName

    init() throws {
        board = try DocumentName("board")
        one = try DocumentName("one")
    }

    func logged(_ ops: [Op], from first: UInt64 = 1) -> [LoggedOp] {
        ops.enumerated().map {
            LoggedOp(position: first + UInt64($0.offset), op: $0.element, author: "a", receivedAt: 0)
        }
    }

    var history: [Op] {
        let star = EntityID(opID(1, alice))
        return [op(1, alice, .create(.emoji, [.character("⭐️")]))]
            + (2...9).map { op(UInt64($0), alice, .set(star, .x(Float($0)))) }
    }

    @Test func anAppendIsNotCommittedUntilStorageCommitsIt() {
        let storage = InMemoryRoomStorage()
        let results = Results()
        storage.append(logged(history), to: board) { results.add($0) }
        #expect(storage.history(of: "board").head == 0)
        #expect(results.count == 0)
        storage.commitPending()
        #expect(storage.history(of: "board").head == 9)
        #expect(results.successes == 1)
    }

    @Test func aCrashLosesWhatWasNotCommittedAndCallsNobodyBack() {
        let storage = InMemoryRoomStorage()
        let results = Results()
        storage.append(logged(Array(history[..<4])), to: board) { results.add($0) }
        storage.commitPending()
        storage.append(logged(Array(history[4...]), from: 5), to: board) { results.add($0) }
        storage.crash()
        storage.commitPending()
        #expect(storage.history(of: "board").head == 4)
        #expect(results.count == 1)
    }

    @Test func anAppendThatSkipsAPositionOrRepeatsAnOpFails() {
        let storage = InMemoryRoomStorage(commitsImmediately: true)
        let results = Results()
        storage.append(logged(Array(history[..<3])), to: board) { results.add($0) }
        storage.append(logged(Array(history[3...]), from: 5), to: board) { results.add($0) }
        storage.append(logged([history[0]], from: 4), to: board) { results.add($0) }
        #expect(results.successes == 1)
        #expect(results.count == 3)
        #expect(storage.history(of: "board").head == 3)
    }

    @Test func aCompactedHistoryLoadsTheSameDocumentAndKeepsItsHighWaterCounters() {
        let storage = InMemoryRoomStorage(commitsImmediately: true)
        storage.append(logged(history), to: board) { _ in }
        let before = storage.history(of: "board")
        storage.snapshotAndCompact("board")
        let after = storage.history(of: "board")
        #expect(after.tail.isEmpty)
        #expect(after.head == before.head)
        #expect(after.highWater == [alice: 9])
        #expect(after.document().canonicalEncoding == before.document().canonicalEncoding)
    }

    @Test func aNewDocumentLoadsEmptyUnderAnEpochOfItsOwn() {
        let storage = InMemoryRoomStorage(seed: 3)
        let loaded = Results()
        storage.load(one) { loaded.add($0.map { _ in () }) }
        #expect(loaded.successes == 1)
        #expect(storage.history(of: "one").head == 0)
        #expect(storage.history(of: "one").epoch != storage.history(of: "two").epoch)
    }
}

/// Callbacks counted (storage may call back on any thread).
typealias Results = Locked<[Result<Void, StorageFailure>]>

extension Locked where Value == [Result<Void, StorageFailure>] {
    convenience init() { self.init([]) }
    func add(_ result: Result<Void, StorageFailure>) { withLock { $0.append(result) } }
    var count: Int { value.count }
    var successes: Int { value.filter { (try? $0.get()) != nil }.count }
}
