import ArgumentParser
import EaselModel
import EaselPostgres
import EaselProtocol
import Foundation

/// Kill, pause and drain nodes of a local cluster (PostgreSQL, nodes,
/// HAProxy) while random bots edit many documents through the router; time
/// how long each struck node's documents take to be served again; at the end,
/// every acknowledged op must be in PostgreSQL exactly once and every
/// document's bots must have converged.
struct ChaosCluster: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "SIGKILL, SIGSTOP and drain nodes of a local cluster under bots; time failover; check PostgreSQL."
    )

    @Option(help: "Nodes behind the router.")
    var nodes = 3
    @Option(help: "How many times to SIGKILL a node (each is started again once its documents moved).")
    var kills = 20
    @Option(help: "How many times to SIGSTOP a node past its lease, then SIGCONT it: it must not append again.")
    var pauses = 2
    @Option(help: "How many times to stop a node cleanly (SIGTERM: it drains), then start it again.")
    var drains = 2
    @Option(
        help:
            "How many nodes to add while the bots run: the router sends each its share of the documents, and the nodes holding them hand them over."
    )
    var adds = 0
    @Option(
        help:
            "Light clients besides the bots, each joined to one of --idle-documents documents through the router and idle: a node's share of them reconnects at once when it is struck (a reconnect storm)."
    )
    var idleClients = 0
    @Option(help: "Documents the idle clients are spread over.") var idleDocuments = 1_000
    @Option(help: "Milliseconds between faults, at least.")
    var shortestCalmMs = 1_000
    @Option(help: "Milliseconds between faults, at most.")
    var longestCalmMs = 3_000
    @Option(help: "Seconds a node that stops renewing keeps its leases.")
    var leaseSeconds = 3.0
    @OptionGroup var chaos: ChaosOptions

    func validate() throws {
        guard (2...16).contains(nodes) else { throw ValidationError("--nodes must be from 2 to 16") }
        guard kills >= 0, pauses >= 0, drains >= 0, (0...16).contains(adds), kills + pauses + drains + adds >= 1 else {
            throw ValidationError(
                "--kills, --pauses, --drains and --adds (at most 16) must be at least 0, and one of them above")
        }
        guard 100 <= shortestCalmMs, shortestCalmMs <= longestCalmMs else {
            throw ValidationError("--shortest-calm-ms must be at least 100 and at most --longest-calm-ms")
        }
    }

    func run() throws {
        // The idle clients' sockets, and the bots', in this one process.
        let files = OpenFileLimit.raise()
        guard idleClients + chaos.documents * chaos.botsPerDocument * 2 + 256 <= files else {
            throw ValidationError(
                "--idle-clients \(idleClients) needs more open files than this process may have (\(files)): raise `ulimit -n`"
            )
        }
        try chaos.run("cluster") { folder, shape in
            let cluster = try LocalCluster(
                nodes: nodes, spare: adds, routerPort: try LocalPostgres.freePort(), folder: folder + "/cluster",
                leaseSeconds: leaseSeconds, web: nil, report: .silent)
            defer { cluster.stop() }
            let witness = Witness()
            let crowd = try ChaosCrowd(
                shape, url: "ws://127.0.0.1:\(cluster.routerPort)",
                images: ChaosImages.write(into: folder + "/images", seed: shape.seed), witness: witness)
            crowd.start()
            let observer = try PostgresStore(url: cluster.postgresURL, migrating: false)
            let storm =
                idleClients > 0
                ? StormClients(count: idleClients, documents: idleDocuments, port: cluster.routerPort) : nil
            var stormProblems: [String] = []
            if let storm {
                let joining = ContinuousClock.now
                storm.start()
                if storm.waitUntilJoined(timeout: .seconds(180)) {
                    print(
                        "\(idleClients) idle clients joined \(idleDocuments) documents in "
                            + String(format: "%.1f s", (ContinuousClock.now - joining).seconds))
                } else {
                    stormProblems.append(
                        "only \(storm.report(since: joining).joined) of \(idleClients) idle clients joined")
                }
            }
            var rejoins: [Double] = []

            var random = SplitMix64(seed: shape.seed ^ 0x636C_7573)
            var faults =
                Array(repeating: Fault.kill, count: kills) + Array(repeating: Fault.pause, count: pauses)
                + Array(repeating: Fault.drain, count: drains) + Array(repeating: Fault.add, count: adds)
            faults.shuffle(using: &random)
            var failovers: [Double] = []
            var pausedFailovers: [Double] = []
            var drainedFailovers: [Double] = []
            var drainTimes: [Double] = []
            var unserved: [String] = []
            var additions: [Addition] = []
            for (index, fault) in faults.enumerated() {
                Thread.sleep(
                    forTimeInterval: Double(Int.random(in: shortestCalmMs...longestCalmMs, using: &random)) / 1000)
                if fault == .add {
                    let addition = try add(to: cluster, observer: observer, witness: witness)
                    additions.append(addition)
                    unserved += addition.unserved.map { "\($0) after add \(index + 1)" }
                    print("add \(index + 1)/\(faults.count): \(addition)")
                    continue
                }
                let running = cluster.runningNodes
                guard let victim = running.randomElement(using: &random) else { break }
                // The bots' documents: the idle clients' are timed by their rejoining.
                let held = try observer.documentsHeld(byNodeNamed: victim).filter { $0.hasPrefix("chaos/doc-") }
                    .compactMap { try? DocumentName($0) }
                let struck = ContinuousClock.now
                switch fault {
                case .kill: try cluster.kill(victim)
                case .pause: try cluster.pause(victim)
                case .drain:
                    try cluster.drain(victim)
                    drainTimes.append((ContinuousClock.now - struck).seconds)
                case .add: break
                }
                // Each of its documents is served again once an op of it is
                // acknowledged, by whichever node took it over.
                // A paused node's clients are cut by the router once it
                // marks the node down; had it not, they would wait for their
                // own silence limit (15 s) before reconnecting.
                let allowed = leaseSeconds * 3 + 10 + (fault == .pause ? 15 : 0)
                let deadline = struck + .seconds(allowed)
                var waiting = Set(held)
                var times: [Double] = []
                while !waiting.isEmpty, ContinuousClock.now < deadline {
                    for document in waiting {
                        guard let first = witness.firstAcknowledgement(in: document, after: struck) else { continue }
                        times.append((first - struck).seconds)
                        waiting.remove(document)
                    }
                    Thread.sleep(forTimeInterval: 0.01)
                }
                unserved += waiting.map { "\($0) after \(fault) \(index + 1) of \(victim)" }
                if let storm {
                    // Every idle client the struck node held is back, through the router.
                    while storm.report(since: struck).away > 0, ContinuousClock.now < deadline + .seconds(20) {
                        Thread.sleep(forTimeInterval: 0.05)
                    }
                    let after = storm.report(since: struck)
                    rejoins += after.rejoins
                    if after.away > 0 {
                        stormProblems.append(
                            "\(after.away) idle clients not back after \(fault) \(index + 1) of \(victim)")
                    }
                    print(
                        "  \(after.rejoins.count + after.away) idle clients cut: back after "
                            + (after.rejoins.isEmpty
                                ? "-"
                                : String(
                                    format: "%.2f s median, %.2f s at worst", median(after.rejoins),
                                    after.rejoins.max() ?? 0)))
                }
                switch fault {
                case .kill: failovers += times
                case .pause: pausedFailovers += times
                case .drain: drainedFailovers += times
                case .add: break
                }
                switch fault {
                case .kill, .drain: try cluster.start(victim)
                case .pause: try cluster.resume(victim)
                case .add: break
                }
                print(
                    "\(fault) \(index + 1)/\(faults.count) of \(victim), which held \(held.count) documents: served again "
                        + "after \(times.isEmpty ? "-" : String(format: "%.2f s median, %.2f s at worst", median(times), times.max() ?? 0))"
                        + (waiting.isEmpty ? "" : "; \(waiting.count) not served within \(allowed) s"))
            }

            let stormReport = storm?.report(since: .now)
            storm?.stop()
            if let full = stormReport?.serverFull, full > 0 {
                stormProblems.append("\(full) idle clients were refused as the server full (402)")
            }
            print("stopping the bots; they settle against the cluster")
            let outcomes = crowd.stopAndSettle()
            let refused = outcomes.values.compactMap { try? $0.get() }.reduce(0) { total, outcome in
                total + outcome.bots.reduce(0) { $0 + $1.opsRefused }
            }
            let moved = additions.map(\.share)
            return ChaosVerdict(
                fault: "\(kills) kills, \(pauses) pauses, \(drains) drains and \(adds) adds of \(nodes) nodes",
                shape: shape,
                outcomes: outcomes,
                audit: try witness.audit(postgres: cluster.postgresURL),
                figures: [
                    ("kills", Double(kills)), ("pauses", Double(pauses)), ("documentsMoved", Double(failovers.count)),
                    ("failoverMedianSeconds", median(failovers)), ("failoverWorstSeconds", failovers.max() ?? 0),
                    ("pausedFailoverMedianSeconds", median(pausedFailovers)),
                    ("pausedFailoverWorstSeconds", pausedFailovers.max() ?? 0), ("drains", Double(drains)),
                    ("drainMedianSeconds", median(drainTimes)),
                    ("drainedFailoverMedianSeconds", median(drainedFailovers)),
                    ("drainedFailoverWorstSeconds", drainedFailovers.max() ?? 0), ("adds", Double(adds)),
                    ("addedShareMedian", median(moved)),
                    ("addedShareExpectedMedian", median(additions.map(\.fairShare))),
                    ("addedMovingMedianSeconds", median(additions.map(\.movingSeconds))),
                    ("opsRefused", Double(refused)), ("idleClients", Double(idleClients)),
                    ("idleRejoined", Double(rejoins.count)), ("idleRejoinMedianSeconds", median(rejoins)),
                    ("idleRejoinWorstSeconds", rejoins.max() ?? 0),
                    ("serverFullRefusals", Double(stormReport?.serverFull ?? 0)),
                ],
                problems: unserved.prefix(10).map { "not served again: \($0)" } + stormProblems)
        }
    }

    enum Fault: CustomStringConvertible {
        case kill, pause, drain, add

        var description: String {
            switch self {
            case .kill: "kill"
            case .pause: "pause"
            case .drain: "drain"
            case .add: "add"
            }
        }
    }

    /// What adding a node moved: the documents the router now sends it and
    /// their nodes handed over, each served there once an op of it is
    /// acknowledged after the last one moved.
    struct Addition: CustomStringConvertible {
        var node: String
        var documentsHeld: Int
        var moved: Int
        /// What the router's even share would be: 1 / the nodes serving.
        var fairShare: Double
        /// From the add to the last document's arrival on the node.
        var movingSeconds: Double
        var unserved: [String]

        var share: Double { documentsHeld == 0 ? 0 : Double(moved) / Double(documentsHeld) }

        var description: String {
            "\(node) took \(moved) of \(documentsHeld) documents (\(String(format: "%.0f%%", share * 100)), "
                + "an even share \(String(format: "%.0f%%", fairShare * 100))), the last "
                + String(format: "%.2f s", movingSeconds) + " after it started"
                + (unserved.isEmpty ? "" : "; \(unserved.count) not served there")
        }
    }

    /// Adds a node and waits for the handovers to it to end: its count of
    /// documents steady for three seconds (the nodes ask the router two
    /// seconds after it starts), twenty at most.
    private func add(to cluster: LocalCluster, observer: PostgresStore, witness: Witness) throws -> Addition {
        let before = Set(cluster.runningNodes)
        let added = ContinuousClock.now
        let node = try cluster.add()
        var count = 0
        var lastChange = added
        let deadline = added + .seconds(20)
        while ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            let now = try observer.documentsHeld(byNodeNamed: node).count
            if now != count {
                count = now
                lastChange = .now
            } else if count > 0, ContinuousClock.now - lastChange >= .seconds(3) {
                break
            }
        }
        let moved = try observer.documentsHeld(byNodeNamed: node).compactMap { try? DocumentName($0) }
        var total = moved.count
        for other in before { total += try observer.documentsHeld(byNodeNamed: other).count }
        // Acknowledged after the last move: by the node that holds it now.
        var waiting = Set(moved)
        let servedBy = ContinuousClock.now + .seconds(10)
        while !waiting.isEmpty, ContinuousClock.now < servedBy {
            waiting = waiting.filter { witness.firstAcknowledgement(in: $0, after: lastChange) == nil }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return Addition(
            node: node, documentsHeld: total, moved: moved.count, fairShare: 1 / Double(before.count + 1),
            movingSeconds: (lastChange - added).seconds, unserved: waiting.map { "\($0) moved to \(node)" })
    }
}
