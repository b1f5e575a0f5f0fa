import EaselLocking
import Foundation

/// A thread that alone touches one SQLite connection, running the jobs
/// handed to it from any thread in the order they came. It takes
/// everything queued at once, so a worker may group jobs (the storage
/// worker commits many appends in one transaction). The op log's storage
/// worker and the server's blob worker are both one of these.
///
/// Closing refuses new jobs (each is cancelled at once, on the caller's
/// thread), lets the thread finish what was queued, and waits for it,
/// except on the thread itself, where waiting would never end.
public final class WorkerThread<Job: Sendable>: Sendable {
    private struct State {
        var jobs: [Job] = []
        var closed = false
        var thread: pthread_t?
    }

    private let state = Locked(State())
    /// One signal a job added, one for the close.
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let cancel: @Sendable (Job) -> Void

    /// Starts the thread. `started` runs on it first (to lower its
    /// priority, say); `run` gets each batch of queued jobs there.
    public init(
        name: String, started: @escaping @Sendable () -> Void = {}, cancel: @escaping @Sendable (Job) -> Void,
        run: @escaping @Sendable ([Job]) -> Void
    ) {
        self.cancel = cancel
        // The thread keeps the worker alive until it is closed and drained.
        let thread = Thread { [self] in
            state.withLock { $0.thread = pthread_self() }
            started()
            while true {
                ready.wait()
                let (batch, closed) = state.withLock { state in
                    var taken: [Job] = []
                    swap(&taken, &state.jobs)
                    return (taken, state.closed)
                }
                if !batch.isEmpty { run(batch) }
                if closed && batch.isEmpty { break }
            }
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Queues a job; a closed worker cancels it at once instead. Whether it
    /// was queued.
    @discardableResult
    public func add(_ job: Job) -> Bool {
        let accepted = state.withLock { state in
            guard !state.closed else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { ready.signal() } else { cancel(job) }
        return accepted
    }

    /// Refuses new jobs, and waits until the thread has run the rest and
    /// ended (unless called on that thread).
    public func close() {
        if closeWithoutWaiting() { return }
        done.wait()
        // For anyone else waiting.
        done.signal()
    }

    /// Refuses new jobs without waiting; whether the caller is the worker
    /// thread itself.
    @discardableResult
    public func closeWithoutWaiting() -> Bool {
        let (onWorker, first) = state.withLock { state in
            let first = !state.closed
            state.closed = true
            return (state.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false, first)
        }
        if first { ready.signal() }
        return onWorker
    }
}
