// A child process for the crash-safety tests (Tests/EaselStoreTests): it
// appends batches through the storage worker as fast as it can and prints
// each op's position and counter once its commit is acknowledged, until it
// is killed. Usage: StoreCrashProbe DATABASE [--ack-before-commit]
import EaselLocking
import EaselModel
import EaselProtocol
import EaselStore
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: StoreCrashProbe DATABASE [--ack-before-commit]\n".utf8))
    exit(64)
}
let faults = StorageFaults(acknowledgeBeforeCommit: arguments.contains("--ack-before-commit"))
let document = "crash"
let replica = ReplicaID.random()

do throws(any Error) {
    let worker = try StorageWorker(path: arguments[1], snapshotEvery: 2_000, faults: faults)
    let ready = DispatchSemaphore(value: 0)
    let headBox = HeadBox()
    worker.perform({ (store: OpStore) throws(StoreError) -> UInt64 in
        try store.createDocument(document, epoch: Epoch(rawValue: 1), at: 0)
        return try store.head(of: document)
    }) { result in
        headBox.head = (try? result.get()) ?? 0
        ready.signal()
    }
    ready.wait()

    var clock = LamportClock(replica: replica)
    var position = headBox.head
    var entity: EntityID?
    let inFlight = DispatchSemaphore(value: 4)
    var generator = SystemRandomNumberGenerator()
    while true {
        var transaction = try clock.beginTransaction()
        if let entity {
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                try transaction.set(.x(Float.random(in: -500...500, using: &generator)), of: entity)
            }
        } else {
            entity = try transaction.create(.emoji, [.character("💥")])
        }
        let ops = clock.commit(transaction).map { op in
            position += 1
            return StoredOp(position: position, op: op, author: "probe", receivedAt: 0)
        }
        inFlight.wait()
        worker.append(ops, to: document) { result in
            if case .success = result {
                let lines = ops.map { "\($0.position) \($0.op.id.replica) \($0.op.id.counter)\n" }.joined()
                lines.utf8CString.withUnsafeBufferPointer { buffer in
                    _ = write(1, buffer.baseAddress, buffer.count - 1)
                }
            }
            inFlight.signal()
        }
    }
} catch {
    FileHandle.standardError.write(Data("StoreCrashProbe: \(error)\n".utf8))
    exit(1)
}

/// The head read on the storage thread, handed to the main thread.
final class HeadBox: Sendable {
    private let value = Locked<UInt64>(0)

    var head: UInt64 {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
