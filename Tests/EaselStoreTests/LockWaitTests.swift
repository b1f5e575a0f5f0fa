import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

@testable import EaselStore

/// Two connections on one file, as the server's storage and blob threads
/// are: a write meeting the other's lock waits for it, up to the busy
/// timeout, and fails with SQLite's busy code past it.
@Suite("Waiting for another connection's lock")
struct LockWaitTests {
    let file = TemporaryDatabase()

    /// Holds the write lock on its own thread for `seconds`; returns once
    /// it has it.
    func holdLock(for seconds: Double) throws -> Thread {
        let taken = DispatchSemaphore(value: 0)
        let path = file.path
        let thread = Thread {
            guard let holder = try? OpStore(path: path) else {
                taken.signal()
                return
            }
            _ = try? holder.inTransaction { () throws(StoreError) in
                _ = try holder.createDocument("holder", epoch: Epoch(rawValue: 1), at: 1)
                taken.signal()
                Thread.sleep(forTimeInterval: seconds)
            }
        }
        thread.start()
        taken.wait()
        return thread
    }

    @Test func aWriteWaitsForTheOtherConnectionsLockInsteadOfFailing() throws {
        let waiter = try OpStore(path: file.path)
        _ = try holdLock(for: 0.3)
        let info = try waiter.createDocument("waiter", epoch: Epoch(rawValue: 2), at: 2)
        #expect(info.name == "waiter")
        #expect(try waiter.listDocuments().map(\.info.name).sorted() == ["holder", "waiter"])
    }

    @Test func aWriteFailsAsBusyOnceItsTimeoutHasPassed() throws {
        let impatient = try OpStore(path: file.path, busyTimeoutMilliseconds: 20)
        _ = try holdLock(for: 1.0)
        let error = #expect(throws: StoreError.self) {
            _ = try impatient.createDocument("impatient", epoch: Epoch(rawValue: 3), at: 3)
        }
        guard case .sqlite(let code)? = error?.reason else {
            Issue.record("not an SQLite error: \(String(describing: error))")
            return
        }
        #expect(code & 0xFF == 5, "SQLITE_BUSY, not \(code)")
    }
}
