import EaselModel
import EaselPostgres
import EaselProtocol
import EaselStore
import EaselSync
import EaselTestSupport
import Foundation
import Testing

@testable import EaselServer

/// What every storage behind the rooms' port must do, run against each
/// adapter: SQLite (`StoreRoomStorage` on a real file), PostgreSQL
/// (`PostgresRoomStorage` on a private server, as one node holding leases)
/// and the in-memory one. Another adapter joins the list below and must
/// pass unchanged.
@Suite("The storage contract", .serialized)
struct StorageContractTests {
    enum Adapter: String, CaseIterable {
        case sqlite, postgres, memory
    }

    /// A fresh storage of the adapter; `done` releases what it holds.
    func storage(_ adapter: Adapter) throws -> (storage: any RoomStorage, done: () -> Void) {
        switch adapter {
        case .sqlite:
            let worker = try StorageWorker(path: temporaryDatabase())
            return (StoreRoomStorage(worker: worker, clock: .system), { worker.shutdown() })
        case .postgres:
            let server = try LocalPostgres()
            let held = HeldLeases()
            let keeper = try LeaseKeeper(
                url: server.url, name: "contract", address: "127.0.0.1:0", lost: { held.lost($0) })
            let worker = try PostgresWorker(url: server.url)
            let storage = PostgresRoomStorage(
                worker: worker, keeper: keeper, held: held, clock: .system, leaseWait: .seconds(1), askHolders: false)
            return (
                storage,
                {
                    worker.shutdown()
                    keeper.stop()
                    server.stop()
                }
            )
        case .memory:
            return (InMemoryRoomStorage(seed: 7, commitsImmediately: true), {})
        }
    }

    func answer<T: Sendable>(_ call: (@escaping @Sendable (Result<T, StorageFailure>) -> Void) -> Void) throws
        -> Result<T, StorageFailure>
    {
        try storageAnswer(call)
    }

    func load(_ storage: any RoomStorage, _ document: DocumentName) throws -> Result<CommittedHistory, StorageFailure> {
        try answer { storage.load(document, completion: $0) }
    }

    func append(_ storage: any RoomStorage, _ ops: [LoggedOp], to document: DocumentName) throws -> Result<
        Void, StorageFailure
    > {
        try answer { storage.append(ops, to: document, completion: $0) }
    }

    func logged(_ ops: [Op], from first: UInt64 = 1) -> [LoggedOp] {
        ops.enumerated().map {
            LoggedOp(position: first + UInt64($0.offset), op: $0.element, author: "ada", receivedAt: 1)
        }
    }

    var history: [Op] {
        let star = EntityID(opID(1, alice))
        return [op(1, alice, .create(.emoji, [.character("⭐️")]))]
            + (2...6).map { op(UInt64($0), alice, .set(star, .x(Float($0)))) }
    }

    func failureKind<T>(_ result: Result<T, StorageFailure>) -> StorageFailure.Kind? {
        if case .failure(let failure) = result { failure.kind } else { nil }
    }

    @Test("a document never written loads empty, each under an epoch of its own", arguments: Adapter.allCases)
    func newDocumentsLoadEmpty(_ adapter: Adapter) throws {
        let (storage, done) = try storage(adapter)
        defer { done() }
        let one = try load(storage, DocumentName("contract/one")).get()
        let two = try load(storage, DocumentName("contract/two")).get()
        #expect(one.head == 0 && one.tail.isEmpty && one.snapshot == nil)
        #expect(one.epoch != two.epoch)
        #expect(try load(storage, DocumentName("contract/one")).get().epoch == one.epoch, "the same epoch again")
    }

    @Test("appends that continue the log commit, and a load returns them in order", arguments: Adapter.allCases)
    func appendsCommitInOrder(_ adapter: Adapter) throws {
        let (storage, done) = try storage(adapter)
        defer { done() }
        let board = try DocumentName("contract/board")
        _ = try load(storage, board).get()
        try append(storage, logged(Array(history[..<2])), to: board).get()
        try append(storage, logged(Array(history[2...]), from: 3), to: board).get()
        let loaded = try load(storage, board).get()
        #expect(loaded.head == 6)
        #expect(loaded.tail.map(\.position) == Array(1...6))
        #expect(loaded.tail.map(\.op) == history)
        #expect(loaded.highWater == [alice: 6])
        #expect(storage.metrics.opsCommitted == 6)
    }

    @Test(
        "an append that leaves a gap, or repeats an op, fails as a conflict and changes nothing",
        arguments: Adapter.allCases)
    func conflictsFail(_ adapter: Adapter) throws {
        let (storage, done) = try storage(adapter)
        defer { done() }
        let board = try DocumentName("contract/conflict")
        _ = try load(storage, board).get()
        try append(storage, logged(Array(history[..<2])), to: board).get()
        #expect(failureKind(try append(storage, logged(Array(history[3...]), from: 4), to: board)) == .conflict)
        #expect(failureKind(try append(storage, logged([history[0]], from: 3), to: board)) == .conflict)
        #expect(try load(storage, board).get().head == 2)
        #expect(storage.metrics.appendsFailed == 2)
        #expect(storage.metrics.opsCommitted == 2)
    }

    @Test("after an unload the document loads with everything it had", arguments: Adapter.allCases)
    func unloadKeepsEverything(_ adapter: Adapter) throws {
        let (storage, done) = try storage(adapter)
        defer { done() }
        let board = try DocumentName("contract/unload")
        let before = try load(storage, board).get()
        try append(storage, logged(history), to: board).get()
        storage.unloaded(board, head: 6)
        let after = try load(storage, board).get()
        #expect(after.head == 6 && after.epoch == before.epoch)
        var expected = Document()
        for op in history { expected.apply(op) }
        #expect(after.document().stateHash == expected.stateHash)
    }
}
