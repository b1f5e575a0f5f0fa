import EaselBotScript
import EaselClient
import EaselClientLWS
import EaselLocking
import EaselModel
import EaselProtocol
import EaselSync
import Foundation
import HeapModule
import Synchronization

/// Many bots in one process, on one client loop, editing one document: it
/// joins them, runs their behaviours on one thread at the times they ask
/// for (taking them offline and back when told), waits until every op is
/// acknowledged, and checks that every bot reads what a fresh client reads
/// from the server.
public final class BotFleet: Sendable {
    public struct Configuration: Sendable {
        public var url: String
        public var document: DocumentName
        public var token: String?
        /// How long every bot has to join before the run is given up.
        public var joinTimeout: Duration = .seconds(10)
        /// How long, after the last edit, ops have to be acknowledged and
        /// bots to converge.
        public var settleTimeout: Duration = .seconds(30)
        /// Stop editing after this long; nil lets every behaviour finish.
        public var duration: Duration?
        public var progressInterval: Duration = .seconds(1)
        /// How bots wait between reconnection attempts: as people's clients
        /// do, but never longer than 2 s, so a run under faults stays short.
        public var backoff = Backoff(firstMilliseconds: 100, longestMilliseconds: 2_000)
        /// The first bot's replica, the others' following it, for a
        /// document that comes out the same every time; random when nil.
        public var firstReplica: ReplicaID?
        /// Told of the ops the server acknowledged, as acknowledgements
        /// arrive (on the client loop's thread): a fault run holds the
        /// server's files to them.
        public var onAcknowledged: (@Sendable ([OpID]) -> Void)?
        /// Told of every blob the server answered an upload of as stored.
        public var onBlobStored: (@Sendable (BlobHash) -> Void)?
        /// Told how long each acknowledged op waited, from its making to
        /// its acknowledgement (a soak samples the latency over time).
        public var onAckLatency: (@Sendable (Duration) -> Void)?

        public init(url: String, document: DocumentName, token: String? = nil) {
            self.url = url
            self.document = document
            self.token = token
        }
    }

    private let configuration: Configuration
    private let behaviours: [any BotBehaviour]
    private let stopRequested = Atomic(false)

    public init(_ configuration: Configuration, behaviours: [any BotBehaviour]) throws(FleetError) {
        guard WebSocketAddress(configuration.url) != nil else {
            throw FleetError("not a ws:// URL: \(configuration.url)")
        }
        self.configuration = configuration
        self.behaviours = behaviours
    }

    /// Stops editing (from any thread, a signal handler's queue say); the
    /// run still settles and gives its verdict.
    public func requestStop() {
        stopRequested.store(true, ordering: .relaxed)
    }

    private var isStopRequested: Bool { stopRequested.load(ordering: .relaxed) }

    /// Runs the fleet to its end on the calling thread, reporting progress
    /// every `progressInterval`.
    public func run(progress: @escaping (FleetProgress) -> Void = { _ in }) throws(FleetError) -> FleetOutcome {
        let loop: ClientLoop
        do {
            loop = try ClientLoop()
        } catch {
            throw FleetError("cannot start the client loop: \(error)")
        }
        defer { loop.shutdown() }
        var run = Run(configuration: configuration, loop: loop, progress: progress) { [self] in isStopRequested }
        defer { run.stopSessions() }
        try run.join(behaviours)
        run.edit()
        return run.settle()
    }
}

public struct FleetError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// One run of a fleet, on the calling thread.
private struct Run {
    let configuration: BotFleet.Configuration
    let loop: ClientLoop
    let report: (FleetProgress) -> Void
    let isStopRequested: () -> Bool
    let origin = ContinuousClock.now
    let tally = Locked(FleetTally())
    let images: FleetImages
    var bots: [FleetBot] = []
    var phase = "joining"
    var nextProgress: ContinuousClock.Instant
    var lastProgress: ContinuousClock.Instant
    /// How late the most overdue bot ran since the last progress report:
    /// above a few milliseconds, the machine cannot keep up the rate asked.
    var lateness: Int64 = 0
    /// Every image a bot's document has shown during the run, looked for
    /// in one bot's document at a time (they converge), every
    /// `imageLookInterval`: an image placed and deleted mid-run is checked
    /// too, not only those still there at the end.
    var imagesSeen: Set<BlobHash> = []
    var nextImageLook: ContinuousClock.Instant
    var imageLookTurn = 0
    static let imageLookInterval: Duration = .milliseconds(100)

    init(
        configuration: BotFleet.Configuration, loop: ClientLoop, progress: @escaping (FleetProgress) -> Void,
        isStopRequested: @escaping () -> Bool
    ) {
        self.configuration = configuration
        self.loop = loop
        report = progress
        self.isStopRequested = isStopRequested
        images = FleetImages(configuration: configuration)
        lastProgress = origin
        nextProgress = origin + configuration.progressInterval
        nextImageLook = origin
    }

    var now: Timestamp { Timestamp(milliseconds: (ContinuousClock.now - origin).wholeMilliseconds) }

    // MARK: Joining

    /// Opens a session per bot and waits until all are in.
    mutating func join(_ behaviours: [any BotBehaviour]) throws(FleetError) {
        for (index, behaviour) in behaviours.enumerated() {
            let name = "bot-\(index + 1)"
            let ledger = Locked(AckLedger())
            let session = try session(for: name, index: index, ledger: ledger)
            bots.append(FleetBot(name: name, session: session, ledger: ledger, behaviour: behaviour))
        }
        for bot in bots { bot.session.start() }
        let deadline = ContinuousClock.now + configuration.joinTimeout
        while let waiting = bots.first(where: { !$0.isJoined }) {
            if isStopRequested() { throw FleetError("stopped before every bot had joined") }
            guard ContinuousClock.now < deadline else {
                let missing = bots.filter { !$0.isJoined }.count
                let reason = waiting.session.read { $0.lastError.map { "the server said \($0.code): \($0.message)" } }
                throw FleetError(
                    "\(missing) of \(bots.count) bots could not join \(configuration.document) at \(configuration.url) "
                        + "within \(configuration.joinTimeout)"
                        + (reason.map { "; \($0)" } ?? " (is the server running?)"))
            }
            pause(until: ContinuousClock.now + .milliseconds(10))
        }
    }

    private func session(for name: String, index: Int, ledger: Locked<AckLedger>) throws(FleetError) -> DocumentSession
    {
        let user = UserInfo(
            name: name, initials: "B", color: Color(rawValue: UInt32(truncatingIfNeeded: index &* 0x9E37_79B9) | 0xFF))
        let replica = configuration.firstReplica.map { ReplicaID(rawValue: $0.rawValue &+ UInt64(index)) } ?? .random()
        var engine = SyncClient(document: configuration.document, user: user, replica: replica, at: now)
        engine.configuration.token = configuration.token
        let tally = self.tally
        let onAcknowledged = configuration.onAcknowledged
        let onAckLatency = configuration.onAckLatency
        do {
            return try DocumentSession(
                engine: engine, url: configuration.url, loop: loop, origin: origin,
                backoff: configuration.backoff
            ) { events in
                let arrived = ContinuousClock.now
                ledger.withLock { ledger in
                    for event in events {
                        switch event {
                        case .acknowledged(let ids):
                            onAcknowledged?(ids)
                            tally.withLock { tally in
                                ledger.acknowledged(ids, at: arrived) { wait in
                                    tally.record(wait)
                                    onAckLatency?(wait)
                                }
                                tally.acknowledged(ids.count)
                            }
                        case .refused(let error, let ops):
                            ledger.refused(ops.count, because: "\(error.code) \(error.message) (\(ops.count) ops)")
                            tally.withLock { $0.refused(ops.count) }
                        case .placeFailed(let blob, let reason, let ops):
                            ledger.refused(ops.count, because: "image \(blob) failed: \(reason) (\(ops.count) ops)")
                            tally.withLock { $0.refused(ops.count) }
                        case .serverError:
                            break
                        }
                    }
                }
            }
        } catch {
            throw FleetError("\(error)")
        }
    }
    // MARK: Editing

    private struct Due: Comparable {
        var time: Timestamp
        /// Ties go in the order they were scheduled.
        var sequence: Int
        var bot: Int
        var reconnect: Bool

        static func < (left: Due, right: Due) -> Bool {
            (left.time, left.sequence) < (right.time, right.sequence)
        }
    }

    /// Runs every bot's behaviour at the times it asks for, until all have
    /// finished, the duration is over or a stop is requested.
    mutating func edit() {
        phase = "editing"
        let start = now
        let end = configuration.duration.map { start + $0.wholeMilliseconds }
        var queue = Heap<Due>()
        var sequence = 0
        func schedule(_ bot: Int, at time: Timestamp, reconnect: Bool = false) {
            sequence += 1
            queue.insert(Due(time: time, sequence: sequence, bot: bot, reconnect: reconnect))
        }
        for index in bots.indices { schedule(index, at: start) }
        while let due = queue.min {
            let now = self.now
            if isStopRequested() || end.map({ now >= $0 }) == true { break }
            // Also when every bot is overdue and the loop never pauses.
            if ContinuousClock.now >= nextProgress { reportProgress() }
            if ContinuousClock.now >= nextImageLook { lookForImages() }
            guard due.time <= now else {
                pause(until: origin + .milliseconds(min(due.time.rawValue, now.rawValue + 50)))
                continue
            }
            lateness = max(lateness, due.time.milliseconds(since: now) * -1)
            queue.removeMin()
            let bot = bots[due.bot]
            if due.reconnect {
                if let until = bot.offlineUntil, until <= now {
                    bot.offlineUntil = nil
                    bot.session.start()
                }
                continue
            }
            switch bot.advance(at: now) {
            case .wait(let until):
                schedule(due.bot, at: until)
            case .offline(let reconnectAt):
                if bot.offlineUntil == nil { bot.offlinePeriods += 1 }
                bot.session.stop()
                bot.offlineUntil = max(bot.offlineUntil ?? reconnectAt, reconnectAt)
                schedule(due.bot, at: reconnectAt, reconnect: true)
                schedule(due.bot, at: now)
            case .image(let step):
                do throws(ScriptError) {
                    try images.carryOut(step, in: bot.session, at: now)
                    schedule(due.bot, at: now)
                } catch {
                    bot.phase = .failed(error)
                }
            case .finished:
                break
            }
        }
        for bot in bots where !bot.isDone { bot.phase = .stopped }
    }

    // MARK: Settling

    /// Brings every bot back online, waits for every op to be acknowledged,
    /// and compares every bot's document with a fresh client's.
    mutating func settle() -> FleetOutcome {
        phase = "settling"
        for bot in bots where bot.offlineUntil != nil {
            bot.offlineUntil = nil
            bot.session.start()
        }
        let deadline = ContinuousClock.now + configuration.settleTimeout
        let settled = wait(until: deadline) { (bots: [FleetBot]) in
            bots.allSatisfy { bot in
                bot.session.read {
                    $0.unacknowledgedCount == 0 && ($0.connectionState == .connected || $0.connectionState == .weak)
                }
            }
        }
        guard settled else {
            let waiting = bots.reduce(0) { $0 + $1.session.read { $0.unacknowledgedCount } }
            return outcome(
                .unsettled(
                    "\(waiting) ops were still unacknowledged after \(configuration.settleTimeout)"
                        + " (is the server running?)"),
                server: nil)
        }
        phase = "checking"
        guard let server = readServer(before: deadline) else {
            return outcome(.unsettled("a fresh client could not read the document from the server"), server: nil)
        }
        let converged = wait(until: max(deadline, ContinuousClock.now + .seconds(5))) { (bots: [FleetBot]) in
            bots.allSatisfy { $0.session.read { $0.editor.document.stateHash } == server.hash }
        }
        let diverged = converged ? [] : bots.filter { $0.session.read { $0.editor.document.stateHash } != server.hash }
        // Every image any bot saw, during the run or at its end, must download whole.
        let seen = imagesSeen.union(bots.flatMap { $0.session.read { $0.editor.document.shownBlobs } })
        images.verify(seen, timeout: max(deadline - ContinuousClock.now, .seconds(10)))
        var outcome = outcome(diverged.isEmpty ? .converged : .diverged(diverged.map(\.name)), server: server)
        (outcome.charactersChecked, outcome.misplacedCharacters) = checkCharacters(in: server.document)
        return outcome
    }

    /// Every acknowledged character where the CRDT says, in the document a
    /// fresh client read (`CharacterCheck`).
    private func checkCharacters(in document: Document) -> (checked: Int, problems: [String]) {
        var check = CharacterCheck()
        for bot in bots {
            let highest = bot.ledger.withLock { $0.highestAcknowledged }
            // Acknowledged in order, each op by its ID.
            for op in bot.characterOps where op.id.counter <= highest { check.note(op, by: bot.name) }
        }
        return check.problems(in: document)
    }

    /// What a client that has never been here reads from the server.
    private mutating func readServer(before deadline: ContinuousClock.Instant)
        -> (hash: StateHash, entities: Int, document: Document)?
    {
        var engine = SyncClient(
            document: configuration.document, user: UserInfo(name: "easel-bot-check", initials: "✓", color: .black),
            replica: .random(), at: now)
        engine.configuration.token = configuration.token
        guard let session = try? DocumentSession(engine: engine, url: configuration.url, loop: loop, origin: origin)
        else { return nil }
        session.start()
        defer { session.stop() }
        let joined = wait(until: max(deadline, ContinuousClock.now + .seconds(5))) { (_: [FleetBot]) in
            session.read { $0.connectionState == .connected || $0.connectionState == .weak }
        }
        guard joined else { return nil }
        return session.read { ($0.editor.document.stateHash, $0.editor.document.visibleCount, $0.editor.document) }
    }

    private func outcome(_ verdict: FleetOutcome.Verdict, server: (hash: StateHash, entities: Int, document: Document)?)
        -> FleetOutcome
    {
        let results = bots.map { bot in
            let ledger = bot.ledger.withLock { $0 }
            let (replica, hash) = bot.session.read { ($0.replica, $0.editor.document.stateHash) }
            var failure: String?
            if case .failed(let error) = bot.phase { failure = error.description }
            return FleetOutcome.Bot(
                name: bot.name, replica: replica.description, opsMade: ledger.made,
                opsAcknowledged: ledger.acknowledged, opsRefused: ledger.refused, refusals: ledger.refusalReasons,
                highestAcknowledgedCounter: ledger.highestAcknowledged, offlinePeriods: bot.offlinePeriods,
                connections: bot.session.connectionsOpened,
                stateHash: hash.description, failure: failure, stopped: bot.phase == .stopped)
        }
        return FleetOutcome(
            bots: results, verdict: verdict, serverHash: server?.hash, serverEntities: server?.entities,
            elapsed: ContinuousClock.now - origin, ackLatency: tally.withLock { $0.latency },
            reconnects: bots.reduce(0) { $0 + max(0, $1.session.connectionsOpened - 1) }, images: images.images)
    }

    // MARK: Time and progress

    /// Waits for a condition on the bots, reporting progress meanwhile.
    private mutating func wait(until deadline: ContinuousClock.Instant, for condition: ([FleetBot]) -> Bool) -> Bool {
        while !condition(bots) {
            guard ContinuousClock.now < deadline else { return false }
            pause(until: ContinuousClock.now + .milliseconds(20))
        }
        return true
    }

    /// Sleeps until `instant`, or until the next progress report or look
    /// for images is due.
    private mutating func pause(until instant: ContinuousClock.Instant) {
        let wake = min(instant, nextProgress, nextImageLook)
        let now = ContinuousClock.now
        if wake > now { Thread.sleep(forTimeInterval: Double((wake - now).wholeMicroseconds) / 1e6) }
        if ContinuousClock.now >= nextProgress { reportProgress() }
        if ContinuousClock.now >= nextImageLook { lookForImages() }
    }

    private mutating func lookForImages() {
        if !bots.isEmpty {
            let bot = bots[imageLookTurn % bots.count]
            imagesSeen.formUnion(bot.session.read { $0.editor.document.shownBlobs })
            imageLookTurn += 1
        }
        nextImageLook = ContinuousClock.now + Self.imageLookInterval
    }

    private mutating func reportProgress() {
        let instant = ContinuousClock.now
        let window = tally.withLock { $0.takeWindow() }
        let made = bots.reduce(0) { $0 + $1.ledger.withLock(\.made) }
        let acknowledged = tally.withLock(\.acknowledged)
        let seconds = Double((instant - lastProgress).wholeMicroseconds) / 1e6
        let hasLatencies = window.latency.totalCount > 0
        report(
            FleetProgress(
                elapsed: instant - origin, phase: phase, bots: bots.count,
                online: bots.filter(\.isJoined).count, opsMade: made, opsAcknowledged: acknowledged,
                acknowledgedPerSecond: seconds > 0 ? Double(window.acknowledged) / seconds : 0,
                ackP50: hasLatencies ? .microseconds(window.latency.valueAtPercentile(50)) : nil,
                ackP99: hasLatencies ? .microseconds(window.latency.valueAtPercentile(99)) : nil,
                behind: .milliseconds(lateness)))
        lateness = 0
        lastProgress = instant
        nextProgress = instant + configuration.progressInterval
    }

    func stopSessions() {
        for bot in bots { bot.session.stop() }
    }
}
