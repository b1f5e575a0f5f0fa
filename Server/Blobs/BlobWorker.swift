import EaselModel
import CLibWebSockets
import EaselStore
import Foundation
import Synchronization

/// Where a stored blob's bytes are: what a download streams.
struct BlobLocation: Sendable {
    var info: BlobInfo
    var upload: UploadID
    var chunks: Int
}

/// The blob store's own thread and database connection, so the service
/// thread never waits on SQLite for a blob. One thread, jobs in order: an
/// upload's begin, chunks and finish run in order, each chunk in its own
/// short transaction, and downloads read a chunk at a time between them.
///
/// The thread runs at a lower scheduling priority (nice 10) than the
/// service and storage threads: moving megabytes of image is bulk work,
/// and on a machine with few cores it must not delay a push's commit and
/// ack (Docs/server.md measures what it changes).
final class BlobWorker: Sendable {
    private let jobs = BlobJobs()
    /// Touched only on the blob thread.
    private nonisolated(unsafe) let store: BlobStore

    /// Chunks commit without syncing; the upload's last commit syncs them
    /// all (`BlobStore.syncingFully`) when the server's durability is full.
    let durability: Durability

    /// How much less the blob thread is scheduled than the others.
    static let niceness: Int32 = 10

    init(path: String, durability: Durability) throws(StoreError) {
        self.durability = durability
        store = try BlobStore(besideDatabase: path, durability: .normal)
        // No upload is in flight before the server serves: what is left
        // was cut short by a killed process.
        try store.removeAbandonedUploads()
        let thread = Thread { [jobs] in
            // Failing to lower it changes nothing else.
            _ = easel_lower_thread_priority(Self.niceness)
            while let job = jobs.next() { job() }
        }
        thread.name = "easel-blobs"
        thread.start()
    }

    /// Runs `work` on the blob thread; `done` is called there with its result.
    func run<T: Sendable>(
        _ work: @escaping @Sendable (BlobStore) throws -> T, done: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        // Used only on the blob thread, which runs one job at a time.
        nonisolated(unsafe) let store = store
        jobs.add { done(Result { try work(store) }) }
    }

    /// Waits for everything queued, then ends the thread (a stopping
    /// server); later work is never run.
    func drain() {
        let finished = DispatchSemaphore(value: 0)
        if jobs.close(after: { finished.signal() }) { finished.wait() }
    }
}

/// The blob thread's jobs, first in first out.
private final class BlobJobs: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var closed = false
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)

    /// Queues a job, unless closed.
    func add(_ job: @escaping @Sendable () -> Void) {
        let accepted = state.withLock { state in
            guard !state.closed else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { ready.signal() }
    }

    /// The next job, waiting for one; nil once closed and empty.
    func next() -> (@Sendable () -> Void)? {
        while true {
            ready.wait()
            let (job, closed) = state.withLock { state in
                (state.jobs.isEmpty ? nil : state.jobs.removeFirst(), state.closed)
            }
            if let job { return job }
            if closed { return nil }
        }
    }

    /// Queues `last` and takes no more jobs, in one step; the thread runs
    /// what was queued, then `last`, then ends. False, and `last` never
    /// runs, when already closed.
    func close(after last: @escaping @Sendable () -> Void) -> Bool {
        let closing = state.withLock { state in
            guard !state.closed else { return false }
            state.jobs.append(last)
            state.closed = true
            return true
        }
        guard closing else { return false }
        // One signal for `last`, one for the end.
        ready.signal()
        ready.signal()
        return true
    }
}

extension BlobStore {
    /// A blob's place, when it was uploaded to the document.
    func blobLocation(_ hash: BlobHash, document: String) throws(StoreError) -> BlobLocation? {
        guard let info = try blobInfo(hash, document: document), let upload = try blobUpload(hash) else { return nil }
        return BlobLocation(info: info, upload: upload, chunks: try chunkCount(of: upload))
    }
}
