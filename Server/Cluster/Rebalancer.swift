import EaselLocking
import EaselPostgres
import EaselProtocol
import Foundation
import Logging

/// Where the router is, and how often a node asks it where its documents
/// belong (Docs/scaling.md, "Rebalancing").
public struct RebalanceOptions: Sendable {
    /// The router's host and port: HAProxy, as the clients reach it.
    public var routerHost: String
    public var routerPort: Int
    /// A round every this long, besides the one after a node starts: a node
    /// the router marked down and up again starts no process, and says
    /// nothing.
    public var every: Duration = .seconds(10)
    /// How long after a node starts its round waits: the router sends it
    /// documents once its health checks pass (two, 250 ms apart).
    public var settle: Duration = .seconds(2)
    /// A document taken more recently than this stays: it may have just
    /// come here because its home is down, and the router's view of a
    /// flapping node should not send it back and forth.
    public var minimumHold: Duration = .seconds(5)
    /// Documents handed over a second at most: each sends its clients
    /// reconnecting at once.
    public var handoversPerSecond = 100
    /// Documents asked about in one round at most: a node holding more
    /// asks about the next ones, by name, in the next round, a second on.
    public var documentsPerRound = 1_000

    public init(routerHost: String, routerPort: Int) {
        self.routerHost = routerHost
        self.routerPort = routerPort
    }
}

/// Hands each document this node holds to the node the router now sends
/// it to, when that is another: after a node starts (it gets its hash
/// share back, or an added one its first), every `every`, and when the
/// node the router sent a client of it to asks. The router's answer is
/// the truth: a node only asks it, with the document's own path.
final class Rebalancer: Sendable {
    private struct State {
        var nextRound: ContinuousClock.Instant
        /// Whether the next round follows a node's start: documents then
        /// too recently taken are asked about again once they may move.
        var followsStart = false
        var stopping = false
    }

    private let options: RebalanceOptions
    private let nodeName: String
    private let held: HeldLeases
    private let keeper: LeaseKeeper
    private let handOver: @Sendable (DocumentName, String) -> Void
    private let logger: Logger
    private let state: Locked<State>
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Locked(false)

    /// `handOver` runs on the lease thread once the lease is marked as
    /// being handed to the node: it closes the room there.
    init(
        options: RebalanceOptions, nodeName: String, held: HeldLeases, keeper: LeaseKeeper, logger: Logger,
        handOver: @escaping @Sendable (DocumentName, String) -> Void
    ) {
        self.options = options
        self.nodeName = nodeName
        self.held = held
        self.keeper = keeper
        self.logger = logger
        self.handOver = handOver
        state = Locked(State(nextRound: .now + options.every))
    }

    func start() {
        started.withLock { $0 = true }
        keeper.whenNodeStarts { [self] name in
            guard name != nodeName else { return }
            roundSoon(after: options.settle, followingStart: true)
        }
        keeper.whenHandoverAsked { [self] id, asker in handoverAsked(of: id, by: asker) }
        let thread = Thread { [self] in
            let probe = RouterProbe(host: options.routerHost, port: options.routerPort)
            // The name the last round stopped after, when it could not ask about all.
            var resumeAfter: String?
            while let followsStart = waitForRound() {
                resumeAfter = round(probe, followingStart: followsStart, after: resumeAfter)
                if resumeAfter != nil { roundSoon(after: .seconds(1), followingStart: false) }
            }
            finished.signal()
        }
        thread.name = "easel-rebalance"
        thread.start()
    }

    /// Ends the thread (a round under way stops between documents); with
    /// `waiting`, returns once it has (a probe in flight may take a few
    /// seconds: each read waits up to two).
    func stop(waiting: Bool) {
        let wasStarted = started.withLock { $0 }
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        if first { wake.signal() }
        guard wasStarted, waiting else { return }
        finished.wait()
    }

    private func roundSoon(after delay: Duration, followingStart: Bool) {
        state.withLock { state in
            state.nextRound = min(state.nextRound, .now + delay)
            state.followsStart = state.followsStart || followingStart
        }
        wake.signal()
    }

    /// Sleeps until the next round is due; nil once stopping, else whether
    /// it follows a node's start.
    private func waitForRound() -> Bool? {
        while true {
            let (due, stopping) = state.withLock { ($0.nextRound, $0.stopping) }
            if stopping { return nil }
            let now = ContinuousClock.now
            if due <= now {
                return state.withLock { state in
                    defer { state.followsStart = false }
                    state.nextRound = now + options.every
                    return state.followsStart
                }
            }
            let (seconds, attoseconds) = (due - now).components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            _ = wake.wait(timeout: .now() + .nanoseconds(nanoseconds))
        }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    /// Another node asked for a document held here: the router sent one of
    /// its clients there (this node's share, or this node is down to the
    /// router while alive). Handed over unless taken too recently.
    private func handoverAsked(of id: Int64, by asker: String) {
        guard let (name, since) = held.document(id: id), ContinuousClock.now - since >= options.minimumHold,
            !isStopping, let document = try? DocumentName(name)
        else {
            keeper.callOffHandover(of: id)
            return
        }
        handOver(document, asker)
    }

    /// Asks about the documents that may move, by name from after
    /// `after`, `documentsPerRound` at most; the last name asked about when
    /// some are left.
    private func round(_ probe: RouterProbe, followingStart: Bool, after: String?) -> String? {
        let now = ContinuousClock.now
        let all = held.documents
        let movable = all.filter { now - $0.since >= options.minimumHold }.sorted { $0.name < $1.name }
        let from = after.map { last in movable.firstIndex { $0.name > last } ?? movable.endIndex } ?? 0
        let documents = movable[from...].prefix(max(1, options.documentsPerRound))
        let left = from + documents.count < movable.count ? documents.last?.name : nil
        if followingStart, let youngest = all.map(\.since).filter({ now - $0 < options.minimumHold }).max() {
            // Likely just moved off the node that started (a restart): it
            // gets them back once they may move.
            roundSoon(after: youngest + options.minimumHold - now, followingStart: false)
        }
        var movedAway = 0
        for (name, id, _) in documents {
            if isStopping { return nil }
            let home: String
            do throws(RouterProbe.Failure) {
                home = try probe.home(of: name)
                // The router tries another node when the home refuses a
                // connection (redispatch): a document moves only when a
                // second question names the same node.
                if home != nodeName, try probe.home(of: name) != home { continue }
            } catch {
                logger.warning(
                    "cannot ask the router where documents belong",
                    metadata: ["router": "\(options.routerHost):\(options.routerPort)", "detail": "\(error)"])
                return nil
            }
            guard home != nodeName, let document = try? DocumentName(name) else { continue }
            let handOver = handOver
            keeper.beginHandover(of: id, to: home) { marked in
                if marked { handOver(document, home) }
            }
            movedAway += 1
            Thread.sleep(forTimeInterval: 1 / Double(max(1, options.handoversPerSecond)))
        }
        if movedAway > 0 {
            logger.info(
                "rebalancing", metadata: ["asked": "\(documents.count)", "handing_over": "\(movedAway)"])
        }
        return left
    }
}
