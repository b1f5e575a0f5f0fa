import EaselLocking
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A node's leases, kept on a thread and connection of their own: the
/// node's row renewed every third of the lease, leases taken (waiting, when
/// asked, for a holder that is gone to expire, or for its release: a
/// NOTIFY wakes the thread at once) and released, and the leases another
/// node took reported as lost.
///
/// The connection's session holds the advisory lock on the node's id: if
/// it breaks, the keeper connects again, takes the lock again, and checks
/// which leases it still holds.
public final class LeaseKeeper: Sendable {
    public typealias TakeCompletion = @Sendable (Result<LeaseAnswer, PostgresError>) -> Void

    private enum Job: Sendable {
        case take(PostgresDocument, deadline: ContinuousClock.Instant, completion: TakeCompletion)
        case release(Int64)
        /// The commit thread found a lease fenced: it is not this node's.
        case forget(Int64)
        case drain
    }

    private struct State: Sendable {
        var jobs: [Job] = []
        var stopping = false
    }

    public let node: NodeIdentity
    public let timing: LeaseTiming
    private let state = Locked(State())
    /// Written to wake the thread; its other end is polled with the socket.
    private let wakeWrite: Int32
    private let wakeRead: Int32
    private let finished = DispatchSemaphore(value: 0)

    /// Registers the node and starts the thread. `lost` hears, on that
    /// thread, the ids of documents whose leases another node took.
    public init(
        url: String, name: String, address: String, timing: LeaseTiming = LeaseTiming(),
        lost: @escaping @Sendable ([Int64]) -> Void
    ) throws(PostgresError) {
        let store = try PostgresStore(url: url, setup: Self.setup)
        node = try store.registerNode(name: name, address: address, timing: timing)
        self.timing = timing
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw PostgresError(.unexpected, "cannot make a pipe: errno \(errno)") }
        (wakeRead, wakeWrite) = (ends[0], ends[1])
        _ = fcntl(wakeRead, F_SETFL, O_NONBLOCK)
        _ = fcntl(wakeWrite, F_SETFL, O_NONBLOCK)
        // In a lock only the thread takes: what crosses to it is checked by
        // the compiler instead of promised.
        let loop = Locked(
            Loop(
                url: url, store: store, node: node, timing: timing, lost: lost, wakeRead: wakeRead,
                takeJobs: { [state] in
                    state.withLock { state in
                        let jobs = state.jobs
                        state.jobs.removeAll()
                        return (jobs, state.stopping)
                    }
                }))
        let thread = Thread { [finished] in
            loop.withLock { $0.run() }
            finished.signal()
        }
        thread.name = "easel-leases"
        thread.start()
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// What every connection of a node sets: a lock wait never hangs a
    /// thread for long, and a transaction left open by a paused process is
    /// ended by the server, so its row locks cannot hold other nodes up.
    public static let setup = [
        "SET lock_timeout = '2s'", "SET idle_in_transaction_session_timeout = '2s'",
        "SET application_name = 'easel'",
    ]

    /// Asks for a document's lease. While a node that is draining holds it,
    /// waits for its release until `wait` has passed; a live node that is
    /// not draining gets `.held` at once (its clients go there).
    /// `completion` runs on the lease thread.
    public func take(
        _ document: PostgresDocument, waitingUpTo wait: Duration = .zero, completion: @escaping TakeCompletion
    ) {
        add(.take(document, deadline: .now + wait, completion: completion))
    }

    /// Gives a lease up (the room unloaded): after the appends queued
    /// before it, when called from the commit thread.
    public func release(_ document: Int64) {
        add(.release(document))
    }

    /// Stops counting a lease as held: an append found it fenced.
    public func forget(_ document: Int64) {
        add(.forget(document))
    }

    /// Marks the node as draining: other nodes asked for its documents wait
    /// for their release.
    public func drain() {
        add(.drain)
    }

    /// Releases every lease, expires the node's row, tells the other nodes,
    /// and ends the thread.
    public func stop() {
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        wake()
        finished.wait()
    }

    private func add(_ job: Job) {
        let accepted = state.withLock { state in
            guard !state.stopping else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted {
            wake()
        } else if case .take(_, _, let completion) = job {
            completion(.failure(PostgresError(.connection, "the node is stopping")))
        }
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// The thread's side: everything here is touched by that thread alone.
    private final class Loop {
        let url: String
        var store: PostgresStore?
        let node: NodeIdentity
        let timing: LeaseTiming
        let lost: @Sendable ([Int64]) -> Void
        let wakeRead: Int32
        let takeJobs: @Sendable () -> ([Job], Bool)
        /// Document id to the fence this node holds it by.
        var held: [Int64: Int64] = [:]
        var waiting: [(document: PostgresDocument, deadline: ContinuousClock.Instant, completion: TakeCompletion)] = []
        var nextRenewal: ContinuousClock.Instant
        var checkHeld = false

        init(
            url: String, store: PostgresStore, node: NodeIdentity, timing: LeaseTiming,
            lost: @escaping @Sendable ([Int64]) -> Void, wakeRead: Int32,
            takeJobs: @escaping @Sendable () -> ([Job], Bool)
        ) {
            self.url = url
            self.store = store
            self.node = node
            self.timing = timing
            self.lost = lost
            self.wakeRead = wakeRead
            self.takeJobs = takeJobs
            nextRenewal = .now + timing.renewEvery
        }

        func run() {
            while true {
                let (jobs, stopping) = takeJobs()
                let released = receiveNotifications()
                for job in jobs { handle(job) }
                if stopping {
                    for take in waiting {
                        take.completion(.failure(PostgresError(.connection, "the node is stopping")))
                    }
                    _ = try? connected().releaseEverything(of: node)
                    return
                }
                if ContinuousClock.now >= nextRenewal { renew() }
                if released || !waiting.isEmpty { retryWaiting() }
                sleep()
            }
        }

        /// The store, connected again (lock and LISTEN included) if it broke.
        func connected() throws(PostgresError) -> PostgresStore {
            if let store, !store.connection.isBroken { return store }
            store = nil
            let fresh = try PostgresStore(url: url, migrating: false, setup: LeaseKeeper.setup)
            try fresh.holdNodeLock(node)
            store = fresh
            // While the session was gone, anyone could take any lease.
            checkHeld = true
            return fresh
        }

        func handle(_ job: Job) {
            switch job {
            case .take(let document, let deadline, let completion):
                waiting.append((document, deadline, completion))
            case .release(let document):
                held[document] = nil
                do throws(PostgresError) {
                    try connected().releaseLease(of: document, by: node)
                } catch {
                    // Expires with the node's row if the node dies; otherwise the
                    // next take of it by this node finds it still this node's.
                }
            case .forget(let document):
                held[document] = nil
            case .drain:
                _ = try? connected().markDraining(node)
            }
        }

        func renew() {
            nextRenewal = .now + timing.renewEvery
            do throws(PostgresError) {
                let store = try connected()
                if !(try store.renew(node, timing: timing)) { checkHeld = true }
                guard checkHeld else { return }
                let still = try store.leases(of: node)
                let gone = held.filter { still[$0.key] != $0.value }.map(\.key)
                for document in gone { held[document] = nil }
                checkHeld = false
                if !gone.isEmpty { lost(gone) }
            } catch {
                // Tried again at the next renewal; meanwhile appends are fenced
                // if another node takes a lease.
                nextRenewal = .now + .milliseconds(100)
            }
        }

        func retryWaiting() {
            let now = ContinuousClock.now
            var still: [(document: PostgresDocument, deadline: ContinuousClock.Instant, completion: TakeCompletion)] =
                []
            for take in waiting {
                do throws(PostgresError) {
                    let answer = try connected().takeLease(of: take.document, for: node)
                    switch answer {
                    case .granted(let lease):
                        held[take.document.id] = lease.fence
                        take.completion(.success(answer))
                    case .held(_, _, draining: true) where now < take.deadline:
                        still.append(take)
                    case .held:
                        take.completion(.success(answer))
                    }
                } catch {
                    take.completion(.failure(error))
                }
            }
            waiting = still
        }

        /// Whether a release arrived.
        func receiveNotifications() -> Bool {
            guard let store else { return false }
            let arrived = (try? store.connection.notifications(waitingUpTo: 0)) ?? []
            return !arrived.isEmpty
        }

        /// Until the next renewal, a waiting take's next try, a job, or a
        /// notification.
        func sleep() {
            var until = nextRenewal
            // A holder that stopped renewing expires without a word: look again soon.
            if !waiting.isEmpty { until = min(until, .now + .milliseconds(50)) }
            let left = until - .now
            let milliseconds = max(
                0,
                Int32(clamping: left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000))
            var watched = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            if let store, !store.connection.isBroken {
                watched.append(pollfd(fd: store.connection.socket, events: Int16(POLLIN), revents: 0))
            }
            _ = poll(&watched, nfds_t(watched.count), milliseconds)
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &drain, drain.count) > 0 {}
        }
    }
}
