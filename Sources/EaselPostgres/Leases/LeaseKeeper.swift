import EaselLocking
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A node's leases, kept on two threads and connections of their own.
///
/// The heartbeat renews the node's row every third of the lease, and its
/// connection's session holds the advisory lock on the node's id: nothing
/// else runs there, so no lock wait or slow take can hold a renewal back.
/// If it breaks, it connects again and takes the lock again.
///
/// The lease thread takes leases (waiting, when asked, for a draining
/// holder's release: a NOTIFY wakes it at once) and releases them, and
/// checks which leases the node still holds whenever the heartbeat found
/// its row had expired or its session gone, and every tenth renewal
/// besides: the leases another node took are reported as lost.
///
/// The heartbeat also keeps `standing`: a node serves its rooms only while
/// a renewal within the lease found its row unexpired (`ServingDeadline`).
public final class LeaseKeeper: Sendable {
    public typealias TakeCompletion = @Sendable (Result<LeaseAnswer, PostgresError>) -> Void

    fileprivate enum Job: Sendable {
        case take(PostgresDocument, deadline: ContinuousClock.Instant, askingHolder: Bool, completion: TakeCompletion)
        case release(Int64)
        case handOver(Int64, to: String, completion: @Sendable (Bool) -> Void)
        case callOff(Int64)
        /// The commit thread found a lease fenced: it is not this node's.
        case forget(Int64)
        case drain
        /// The heartbeat asks: which leases are still this node's?
        case checkHeld
    }

    fileprivate struct State: Sendable {
        var jobs: [Job] = []
        var stopping = false
    }

    public let node: NodeIdentity
    public let timing: LeaseTiming
    private let state = Locked(State())
    private let wakeWrite: Int32
    private let heartbeatStop = DispatchSemaphore(value: 0)
    private let heartbeatDone = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let nodesChanged: Locked<(@Sendable (String) -> Void)?>
    private let handoverAsked: Locked<(@Sendable (Int64, String) -> Void)?>
    private let serving: ServingDeadline

    /// Registers the node and starts the threads. `lost` hears, on the
    /// lease thread, the ids of documents whose leases another node took.
    public init(
        url: String, name: String, address: String, timing: LeaseTiming = LeaseTiming(),
        lost: @escaping @Sendable ([Int64]) -> Void
    ) throws(PostgresError) {
        let beating = try PostgresStore(url: url, setup: Self.setup)
        let registering = ContinuousClock.now
        node = try beating.registerNode(name: name, address: address, timing: timing)
        let serving = ServingDeadline(until: registering + timing.servesFor)
        self.serving = serving
        let working = try PostgresStore(url: url, migrating: false, setup: Self.setup)
        try Self.listen(on: working)
        self.timing = timing
        let nodesChanged = Locked<(@Sendable (String) -> Void)?>(nil)
        self.nodesChanged = nodesChanged
        let handoverAsked = Locked<(@Sendable (Int64, String) -> Void)?>(nil)
        self.handoverAsked = handoverAsked
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw PostgresError(.unexpected, "cannot make a pipe: errno \(errno)") }
        let wakeRead = ends[0]
        wakeWrite = ends[1]
        _ = fcntl(wakeRead, F_SETFL, O_NONBLOCK)
        _ = fcntl(wakeWrite, F_SETFL, O_NONBLOCK)
        let (state, node, wakeWrite) = (state, node, wakeWrite)
        let take: @Sendable () -> ([Job], Bool) = {
            state.withLock { state in
                let jobs = state.jobs
                state.jobs.removeAll()
                return (jobs, state.stopping)
            }
        }
        // Each in a lock only its thread takes: what crosses to it is
        // checked by the compiler instead of promised.
        let loop = Locked(
            Loop(
                url: url, store: working, node: node, lost: lost, nodeStarted: { name in nodesChanged.value?(name) },
                handoverAsked: { document, name in handoverAsked.value?(document, name) }, wakeRead: wakeRead,
                takeJobs: take))
        let heart = Locked(
            Heartbeat(
                url: url, store: beating, node: node, timing: timing, serving: serving, registered: registering))
        let askToCheck: @Sendable () -> Void = {
            state.withLock { $0.jobs.append(.checkHeld) }
            Self.wake(wakeWrite)
        }
        let (heartbeatStop, heartbeatDone, finished) = (heartbeatStop, heartbeatDone, finished)
        let heartbeat = Thread {
            heart.withLock { $0.run(until: heartbeatStop, askToCheck: askToCheck) }
            heartbeatDone.signal()
        }
        heartbeat.name = "easel-heartbeat"
        heartbeat.start()
        let thread = Thread {
            loop.withLock { $0.run() }
            // The heartbeat ends first: it would renew a row marked expired.
            heartbeatStop.signal()
            heartbeatDone.wait()
            loop.withLock { $0.releaseEverything() }
            close(wakeRead)
            close(wakeWrite)
            finished.signal()
        }
        thread.name = "easel-leases"
        thread.start()
    }

    /// Without `stop()`, the threads still end, releasing the leases, once
    /// the keeper is gone (a server that failed to start).
    deinit {
        if beginStopping() { Self.wake(wakeWrite) }
    }

    /// Whether the node may serve the documents it holds at `now`: its
    /// last renewal, counted from when it was sent, is within the lease,
    /// and no renewal since found its row expired or its session gone
    /// (when not, another node may have taken any of them); and how many
    /// renewals found that since the node started.
    public func standing(at now: ContinuousClock.Instant = .now) -> ServingStanding {
        serving.standing(at: now)
    }

    /// What every connection of a node sets: a lock wait never hangs a
    /// thread for long, and a transaction left open by a paused process is
    /// ended by the server, so its row locks cannot hold other nodes up.
    public static let setup = [
        "SET lock_timeout = '2s'", "SET idle_in_transaction_session_timeout = '2s'",
        "SET application_name = 'easel'",
    ]

    /// Asks for a document's lease. While its holder is releasing it
    /// (draining, or handing it to this node), waits for the release until
    /// `wait` has passed. Another live holder is answered `.held` at once
    /// (its clients go there) unless `askingHolder`: then it is asked to
    /// hand the document over, and waited for the same way; it may call
    /// that off. `completion` runs on the lease thread.
    public func take(
        _ document: PostgresDocument, waitingUpTo wait: Duration = .zero, askingHolder: Bool = false,
        completion: @escaping TakeCompletion
    ) {
        add(.take(document, deadline: .now + wait, askingHolder: askingHolder, completion: completion))
    }

    /// Hears, on the lease thread, each document another node asked this
    /// one to hand over (by id), and that node's name. Hand it over, or
    /// `callOffHandover`.
    public func whenHandoverAsked(_ handler: @escaping @Sendable (Int64, String) -> Void) {
        handoverAsked.withLock { $0 = handler }
    }

    /// Calls off a handover another node asked for: it sends its client here.
    public func callOffHandover(of document: Int64) {
        add(.callOff(document))
    }

    /// Gives a lease up (the room unloaded). Jobs run in the order they
    /// come: a take asked after a release is answered after it.
    public func release(_ document: Int64) {
        add(.release(document))
    }

    /// Marks a lease as being handed to the node of that name (the router
    /// sends the document there now): that node waits for the release.
    /// `completion` hears, on the lease thread, whether it was marked.
    public func beginHandover(of document: Int64, to node: String, completion: @escaping @Sendable (Bool) -> Void) {
        add(.handOver(document, to: node, completion: completion))
    }

    /// Hears, on the lease thread, the name of each other node that starts:
    /// the router may now send it documents held here.
    public func whenNodeStarts(_ handler: @escaping @Sendable (String) -> Void) {
        nodesChanged.withLock { $0 = handler }
    }

    static func listen(on store: PostgresStore) throws(PostgresError) {
        try store.connection.execute("LISTEN \(PostgresStore.releaseChannel)")
        try store.connection.execute("LISTEN \(PostgresStore.nodesChannel)")
        try store.connection.execute("LISTEN \(PostgresStore.handoverChannel)")
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
    /// and ends the threads.
    public func stop() {
        guard beginStopping() else { return }
        Self.wake(wakeWrite)
        finished.wait()
    }

    private func beginStopping() -> Bool {
        state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
    }

    private func add(_ job: Job) {
        let accepted = state.withLock { state in
            guard !state.stopping else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted {
            Self.wake(wakeWrite)
        } else if case .take(_, _, _, let completion) = job {
            completion(.failure(PostgresError(.connection, "the node is stopping")))
        } else if case .handOver(_, _, let completion) = job {
            completion(false)
        }
    }

    private static func wake(_ descriptor: Int32) {
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
    }
}

/// The heartbeat thread's side: the node's row and its session lock.
private final class Heartbeat {
    let url: String
    var store: PostgresStore?
    let node: NodeIdentity
    let timing: LeaseTiming
    let serving: ServingDeadline
    /// When the last renewal that went through was sent: the expiry it set
    /// is no earlier than that plus the lease.
    var lastRenewed: ContinuousClock.Instant

    init(
        url: String, store: PostgresStore, node: NodeIdentity, timing: LeaseTiming, serving: ServingDeadline,
        registered: ContinuousClock.Instant
    ) {
        self.url = url
        self.store = store
        self.node = node
        self.timing = timing
        self.serving = serving
        lastRenewed = registered
    }

    /// Renews until `stop` is signalled, a third of the lease after each
    /// renewal was sent; asks the lease thread to check the node's leases
    /// when they may have been taken, and every tenth time.
    func run(until stop: DispatchSemaphore, askToCheck: @Sendable () -> Void) {
        var renewals = 0
        var wait = timing.renewEvery
        while stop.wait(timeout: .now() + .nanoseconds(Int(wait.nanoseconds))) == .timedOut {
            let sent = ContinuousClock.now
            wait = timing.renewEvery
            do throws(PostgresError) {
                var maybeTaken = false
                if store?.connection.isBroken != false {
                    // While the session was gone, anyone could take any lease.
                    serving.revoke()
                    store = nil
                    let fresh = try PostgresStore(url: url, migrating: false, setup: LeaseKeeper.setup)
                    try fresh.holdNodeLock(node)
                    store = fresh
                    maybeTaken = true
                }
                guard let store else { continue }
                let unexpired = try store.renew(node, timing: timing)
                // The row is compared with the time its transaction began:
                // a renewal that began before the expiry the last one set,
                // and ended after it, says unexpired though a take may have
                // come between. So it counts only if it ended in time.
                let inTime = ContinuousClock.now < lastRenewed + timing.servesFor
                lastRenewed = sent
                if unexpired, inTime {
                    // After a new session, serving waits for the next
                    // renewal, by when the leases taken were reported lost.
                    if !maybeTaken { serving.extend(to: sent + timing.servesFor) }
                } else {
                    serving.revoke()
                    maybeTaken = true
                }
                renewals += 1
                if maybeTaken || renewals % 10 == 0 { askToCheck() }
            } catch {
                // Tried again soon; meanwhile appends are fenced if another
                // node takes a lease.
                wait = .milliseconds(100)
            }
            wait = max(.zero, wait - (ContinuousClock.now - sent))
        }
    }
}

/// The lease thread's side: everything here is touched by that thread alone.
private final class Loop {
    let url: String
    var store: PostgresStore?
    let node: NodeIdentity
    let lost: @Sendable ([Int64]) -> Void
    let nodeStarted: @Sendable (String) -> Void
    let handoverAsked: @Sendable (Int64, String) -> Void
    let wakeRead: Int32
    let takeJobs: @Sendable () -> ([LeaseKeeper.Job], Bool)
    /// Document id to the fence this node holds it by.
    var held: [Int64: Int64] = [:]
    /// A take waiting for a holder's release.
    struct WaitingTake {
        var document: PostgresDocument
        var deadline: ContinuousClock.Instant
        var completion: LeaseKeeper.TakeCompletion
        /// Whether to ask a live holder to hand the document over.
        var askingHolder: Bool
        var asked = false
    }

    var waiting: [WaitingTake] = []
    /// When the waiting takes were last tried without a release to prompt
    /// it: a holder may also die without a word.
    var lastRetry = ContinuousClock.now
    var checkHeld = false

    init(
        url: String, store: PostgresStore, node: NodeIdentity, lost: @escaping @Sendable ([Int64]) -> Void,
        nodeStarted: @escaping @Sendable (String) -> Void,
        handoverAsked: @escaping @Sendable (Int64, String) -> Void, wakeRead: Int32,
        takeJobs: @escaping @Sendable () -> ([LeaseKeeper.Job], Bool)
    ) {
        self.url = url
        self.store = store
        self.node = node
        self.lost = lost
        self.nodeStarted = nodeStarted
        self.handoverAsked = handoverAsked
        self.wakeRead = wakeRead
        self.takeJobs = takeJobs
    }

    /// Runs until the keeper stops.
    func run() {
        while true {
            let (jobs, stopping) = takeJobs()
            var released = receiveNotifications()
            for job in jobs { handle(job) }
            // Read while the jobs' queries ran, they wait in libpq's buffer,
            // where a poll of the socket does not see them.
            let late = receiveNotifications()
            released.documents.formUnion(late.documents)
            released.all = released.all || late.all
            if stopping {
                for take in waiting {
                    take.completion(.failure(PostgresError(.connection, "the node is stopping")))
                }
                waiting = []
                return
            }
            if checkHeld { checkLeases() }
            if !waiting.isEmpty {
                if released.all || ContinuousClock.now - lastRetry >= .milliseconds(250) {
                    retryWaiting(only: nil)
                } else if !released.documents.isEmpty {
                    retryWaiting(only: released.documents)
                }
            }
            sleep()
        }
    }

    /// Every lease released, the row expired, the other nodes told.
    func releaseEverything() {
        _ = try? connected().releaseEverything(of: node)
    }

    /// The store, connected again (and listening) if it broke.
    func connected() throws(PostgresError) -> PostgresStore {
        if let store, !store.connection.isBroken { return store }
        store = nil
        let fresh = try PostgresStore(url: url, migrating: false, setup: LeaseKeeper.setup)
        try LeaseKeeper.listen(on: fresh)
        store = fresh
        return fresh
    }

    func handle(_ job: LeaseKeeper.Job) {
        switch job {
        case .take(let document, let deadline, let askingHolder, let completion):
            waiting.append(
                WaitingTake(document: document, deadline: deadline, completion: completion, askingHolder: askingHolder))
            retryWaiting(only: [document.id])
        case .release(let document):
            held[document] = nil
            do throws(PostgresError) {
                try connected().releaseLease(of: document, by: node)
            } catch {
                // Expires with the node's row if the node dies; otherwise the
                // next take of it by this node finds it still this node's.
            }
        case .handOver(let document, let name, let completion):
            let marked =
                held[document] != nil && ((try? connected().beginHandover(of: document, by: node, to: name)) ?? false)
            completion(marked)
        case .callOff(let document):
            _ = try? connected().callOffHandover(of: document, by: node)
        case .forget(let document):
            held[document] = nil
        case .drain:
            _ = try? connected().markDraining(node)
        case .checkHeld:
            checkHeld = true
        }
    }

    /// Reports the leases the node no longer holds (another node took them).
    func checkLeases() {
        do throws(PostgresError) {
            let still = try connected().leases(of: node)
            let gone = held.filter { still[$0.key] != $0.value }.map(\.key)
            for document in gone { held[document] = nil }
            checkHeld = false
            if !gone.isEmpty { lost(gone) }
        } catch {
            // Checked again on the next turn.
        }
    }

    /// Tries the waiting takes again (those of `only`'s documents, or all).
    func retryWaiting(only documents: Set<Int64>?) {
        let now = ContinuousClock.now
        if documents == nil { lastRetry = now }
        var still: [WaitingTake] = []
        for var take in waiting {
            guard documents?.contains(take.document.id) ?? true else {
                still.append(take)
                continue
            }
            do throws(PostgresError) {
                let store = try connected()
                let answer = try store.takeLease(of: take.document, for: node)
                switch answer {
                case .granted(let lease):
                    held[take.document.id] = lease.fence
                    take.completion(.success(answer))
                case .held(_, _, releasing: true) where now < take.deadline:
                    still.append(take)
                case .held(_, _, releasing: true):
                    // A holder that never released (its room was not loaded,
                    // or it never heard the ask) leaves no mark behind: this
                    // node's next take of it asks again.
                    try store.giveUpHandover(of: take.document.id, to: node)
                    take.completion(.success(answer))
                case .held(let holder, _, releasing: false)
                where take.askingHolder && !take.asked && now < take.deadline:
                    take.asked = true
                    if try store.askHandover(of: take.document.id, from: holder.id, to: node) {
                        still.append(take)
                    } else {
                        take.completion(.success(answer))
                    }
                case .held:
                    take.completion(.success(answer))
                }
            } catch {
                take.completion(.failure(error))
            }
        }
        waiting = still
    }

    /// The documents whose leases were released (`all` for a node's every
    /// lease); nodes that started, and handovers asked of this node, are
    /// told on.
    func receiveNotifications() -> (documents: Set<Int64>, all: Bool) {
        guard let store else { return ([], false) }
        let arrived = (try? store.connection.notifications(waitingUpTo: 0)) ?? []
        var released: (documents: Set<Int64>, all: Bool) = ([], false)
        for notification in arrived {
            switch notification.channel {
            case PostgresStore.nodesChannel:
                nodeStarted(notification.payload)
            case PostgresStore.handoverChannel:
                let parts = notification.payload.split(separator: ":", maxSplits: 2)
                guard parts.count == 3, Int64(parts[0]) == node.id, let document = Int64(parts[1]) else { continue }
                handoverAsked(document, String(parts[2]))
            default:
                if let document = Int64(notification.payload) {
                    released.documents.insert(document)
                } else {
                    released.all = true
                }
            }
        }
        return released
    }

    /// Until a job, a notification, or (while takes wait for a draining
    /// holder, which may also die without a word) 50 ms.
    func sleep() {
        var watched = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if let store, !store.connection.isBroken {
            watched.append(pollfd(fd: store.connection.socket, events: Int16(POLLIN), revents: 0))
        }
        _ = poll(&watched, nfds_t(watched.count), waiting.isEmpty && !checkHeld ? 1_000 : 50)
        var drain = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &drain, drain.count) > 0 {}
    }
}
