import EaselLocking
import EaselModel
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

@testable import EaselStore

@Suite("Storage worker")
struct StorageWorkerTests {
    let file = TemporaryDatabase()

    /// Holds the worker's thread in a `perform` until released, so the
    /// appends queued meanwhile reach it as one group. Returns once the
    /// worker is inside the `perform`: appends queued before that could be
    /// taken in the same turn and committed apart from the later ones.
    func holdWorker(_ worker: StorageWorker) -> DispatchSemaphore {
        let release = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        worker.perform(
            { (_: OpStore) throws(StoreError) in
                holding.signal()
                release.wait()
            }, completion: { _ in })
        holding.wait()
        return release
    }

    func makeDocuments(_ names: [String], in worker: StorageWorker) {
        let done = DispatchSemaphore(value: 0)
        worker.perform({ (store: OpStore) throws(StoreError) in
            for name in names { try store.createDocument(name, epoch: Epoch(rawValue: 1), at: now) }
        }) { _ in done.signal() }
        done.wait()
    }

    @Test func appendsFromManyRoomsQueuedTogetherCommitInOneTransaction() throws {
        let worker = try StorageWorker(path: file.path)
        defer { worker.shutdown() }
        let rooms = (0..<10).map { "room-\($0)" }
        makeDocuments(rooms, in: worker)
        let release = holdWorker(worker)
        let group = DispatchGroup()
        for (index, room) in rooms.enumerated() {
            group.enter()
            worker.append(StoreHistory(seed: UInt64(index), length: 20).positioned(), to: room) { result in
                #expect((try? result.get()) != nil)
                group.leave()
            }
        }
        let before = worker.metrics.transactions
        release.signal()
        group.wait()
        #expect(worker.metrics.transactions - before == 1)
        #expect(worker.metrics.lastOpsPerTransaction >= 200)
    }

    @Test func oneRoomsFailureFailsOnlyThatRoomsAppend() throws {
        let worker = try StorageWorker(path: file.path)
        defer { worker.shutdown() }
        makeDocuments(["good", "bad"], in: worker)
        let history = StoreHistory(seed: 7, length: 20).positioned()
        let release = holdWorker(worker)
        let results = Locked([String: Result<Void, StoreError>]())
        let group = DispatchGroup()
        for (room, ops) in [("good", history), ("bad", Array(history[5...]))] {
            group.enter()
            worker.append(ops, to: room) { result in
                results.withLock { $0[room] = result }
                group.leave()
            }
        }
        release.signal()
        group.wait()
        #expect(results.value["good"].map { (try? $0.get()) != nil } == true)
        #expect(results.value["bad"].map { (try? $0.get()) == nil } == true)
        let store = try OpStore(path: file.path)
        #expect(try store.head(of: "good") == 20)
        #expect(try store.head(of: "bad") == 0)
    }

    /// A document's appends in one commit share a savepoint; a bad one
    /// among them must still fail alone, the appends before it committed.
    @Test func aBadAppendAmongADocumentsAppendsInOneCommitFailsAloneAndThoseBeforeItCommit() throws {
        let worker = try StorageWorker(path: file.path)
        defer { worker.shutdown() }
        makeDocuments(["board", "other"], in: worker)
        let history = StoreHistory(seed: 11, length: 30).positioned()
        // 1-10 and 11-20 follow each other; the third repeats 15-20, a gap
        // after 20; the fourth, 21-30, follows 20 and commits.
        let appends = [Array(history[0..<10]), Array(history[10..<20]), Array(history[14..<20]), Array(history[20...])]
        let release = holdWorker(worker)
        let results = Locked([Int: Bool]())
        let group = DispatchGroup()
        for (index, ops) in appends.enumerated() {
            group.enter()
            worker.append(ops, to: "board") { result in
                results.withLock { $0[index] = (try? result.get()) != nil }
                group.leave()
            }
        }
        group.enter()
        worker.append(Array(history[0..<5]), to: "other") { result in
            results.withLock { $0[4] = (try? result.get()) != nil }
            group.leave()
        }
        let before = worker.metrics.transactions
        release.signal()
        group.wait()
        #expect(worker.metrics.transactions - before == 1)
        #expect(results.value == [0: true, 1: true, 2: false, 3: true, 4: true])
        let store = try OpStore(path: file.path)
        #expect(try store.head(of: "board") == 30)
        #expect(try store.ops(of: "board", after: 0).map(\.position) == Array(1...30))
        #expect(try store.head(of: "other") == 5)
    }

    /// Many appends to one document in one commit, as one busy room makes
    /// them: every op stored once, in order, each callback told so.
    @Test func aDocumentsManyAppendsInOneCommitAreAllStoredInOrder() throws {
        let worker = try StorageWorker(path: file.path)
        defer { worker.shutdown() }
        makeDocuments(["board"], in: worker)
        let history = StoreHistory(seed: 12, length: 200).positioned()
        let release = holdWorker(worker)
        let succeeded = Locked(0)
        let group = DispatchGroup()
        for start in stride(from: 0, to: 200, by: 1) {
            group.enter()
            worker.append([history[start]], to: "board") { result in
                if (try? result.get()) != nil { succeeded.withLock { $0 += 1 } }
                group.leave()
            }
        }
        release.signal()
        group.wait()
        #expect(succeeded.value == 200)
        let store = try OpStore(path: file.path)
        #expect(try store.ops(of: "board", after: 0) == history)
    }

    /// A second connection sees the ops when the callback runs: the
    /// acknowledgement follows the commit.
    @Test(arguments: [false, true])
    func theCallbackRunsOnlyOnceTheOpsAreCommitted(acknowledgeBeforeCommit: Bool) throws {
        let worker = try StorageWorker(
            path: file.path, faults: StorageFaults(acknowledgeBeforeCommit: acknowledgeBeforeCommit))
        defer { worker.shutdown() }
        makeDocuments(["board"], in: worker)
        let path = file.path
        let seen = Locked<UInt64>(0)
        let done = DispatchSemaphore(value: 0)
        worker.append(StoreHistory(seed: 8, length: 10).positioned(), to: "board") { _ in
            // A second connection, as another process would read.
            let head = (try? OpStore(path: path).head(of: "board")) ?? 0
            seen.withLock { $0 = head }
            done.signal()
        }
        done.wait()
        // With the fault switched on the check fails: proof it can.
        #expect((seen.value == 10) == !acknowledgeBeforeCommit)
    }

    @Test func aSnapshotIsTakenEveryNOps() throws {
        let worker = try StorageWorker(path: file.path, snapshotEvery: 50)
        makeDocuments(["board"], in: worker)
        let history = StoreHistory(seed: 9, length: 120).positioned()
        for start in stride(from: 0, to: history.count, by: 30) {
            worker.append(Array(history[start..<min(start + 30, history.count)]), to: "board") { _ in }
        }
        worker.shutdown()
        let store = try OpStore(path: file.path)
        let snapshot = try #require(try store.latestSnapshot(of: "board"))
        #expect(snapshot.position >= 90)
        #expect(
            try store.load("board").document().canonicalEncoding
                == Document(applying: history.map(\.op)).canonicalEncoding)
    }

    /// A snapshot replays its whole document: on the storage thread it held
    /// every room's commits back. Here the snapshot thread is stuck before
    /// its first snapshot, and commits past the snapshot point still go on.
    @Test func commitsAreAcknowledgedWhileASnapshotIsStillBeingMade() throws {
        let snapshotThread = DispatchSemaphore(value: 0)
        let worker = try StorageWorker(
            path: file.path, snapshotEvery: 50, snapshotsStarted: { snapshotThread.wait() })
        makeDocuments(["board", "other"], in: worker)
        let history = StoreHistory(seed: 11, length: 120).positioned()
        let acknowledged = DispatchGroup()
        for start in stride(from: 0, to: history.count, by: 30) {
            acknowledged.enter()
            worker.append(Array(history[start..<min(start + 30, history.count)]), to: "board") { result in
                #expect((try? result.get()) != nil)
                acknowledged.leave()
            }
        }
        acknowledged.enter()
        worker.append(StoreHistory(seed: 12, length: 5).positioned(), to: "other") { _ in acknowledged.leave() }
        #expect(acknowledged.wait(timeout: .now() + 10) == .success, "commits waited for the snapshot")
        #expect(try OpStore(path: file.path).latestSnapshot(of: "board") == nil)

        snapshotThread.signal()
        worker.shutdown()
        let snapshot = try #require(try OpStore(path: file.path).latestSnapshot(of: "board"))
        #expect(snapshot.position == 120, "the snapshot asked for is made at shutdown, at the head it reads")
    }

    /// A room's load replays its document: on the storage thread a big one
    /// held every room's commits back. Here the load thread is stuck, a
    /// load waits on it, and commits go on; the load then sees them.
    @Test func commitsAreAcknowledgedWhileALoadIsStillReplaying() throws {
        let replayThread = DispatchSemaphore(value: 0)
        let worker = try StorageWorker(path: file.path, loadsStarted: { replayThread.wait() })
        defer { worker.shutdown() }
        makeDocuments(["big", "other"], in: worker)
        let loaded = Locked<LoadedDocument?>(nil)
        let loadDone = DispatchSemaphore(value: 0)
        worker.read({ store throws(StoreError) in try store.load("other") }) { result in
            loaded.withLock { $0 = try? result.get() }
            loadDone.signal()
        }
        let acknowledged = DispatchSemaphore(value: 0)
        worker.append(StoreHistory(seed: 13, length: 5).positioned(), to: "other") { result in
            #expect((try? result.get()) != nil)
            acknowledged.signal()
        }
        #expect(acknowledged.wait(timeout: .now() + 10) == .success, "the commit waited for the load")
        replayThread.signal()
        #expect(loadDone.wait(timeout: .now() + 10) == .success)
        #expect(loaded.value?.head == 5, "a read begun after a commit sees it")
    }

    /// Someone waits for a load, nobody for a snapshot, which runs below
    /// the server's priority: a load never queues behind one. Here the
    /// snapshot thread is stuck with a snapshot asked for, and a load is
    /// answered all the same.
    @Test func aLoadIsAnsweredWhileASnapshotIsStuck() throws {
        let snapshotThread = DispatchSemaphore(value: 0)
        let worker = try StorageWorker(
            path: file.path, snapshotEvery: 50, snapshotsStarted: { snapshotThread.wait() })
        makeDocuments(["board"], in: worker)
        let committed = DispatchSemaphore(value: 0)
        worker.append(StoreHistory(seed: 14, length: 60).positioned(), to: "board") { _ in committed.signal() }
        #expect(committed.wait(timeout: .now() + 30) == .success)
        worker.snapshot("board")
        let loaded = Locked<LoadedDocument?>(nil)
        let loadDone = DispatchSemaphore(value: 0)
        worker.read({ store throws(StoreError) in try store.load("board") }) { result in
            loaded.withLock { $0 = try? result.get() }
            loadDone.signal()
        }
        #expect(loadDone.wait(timeout: .now() + 30) == .success, "the load waited for the snapshot thread")
        #expect(loaded.value?.head == 60)
        snapshotThread.signal()
        worker.shutdown()
        #expect(try OpStore(path: file.path).latestSnapshot(of: "board")?.position == 60)
    }

    @Test func shutdownCommitsWhatWasQueuedAndRefusesWhatComesAfter() throws {
        let worker = try StorageWorker(path: file.path)
        makeDocuments(["board"], in: worker)
        let history = StoreHistory(seed: 10, length: 40).positioned()
        worker.append(Array(history[..<20]), to: "board") { _ in }
        worker.append(Array(history[20...]), to: "board") { _ in }
        worker.shutdown()
        #expect(try OpStore(path: file.path).head(of: "board") == 40)
        let refused = Locked<Result<Void, StoreError>?>(nil)
        worker.append(history, to: "board") { result in refused.withLock { $0 = result } }
        #expect(refused.value.map { (try? $0.get()) == nil } == true)
    }
}
