import ArgumentParser
import EaselPostgres
import Foundation

struct Cluster: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run several nodes behind HAProxy on a private PostgreSQL, on loopback.",
        discussion: """
            Starts PostgreSQL (Debian's server binaries, initdb in a folder of its own), \
            N `easel serve --store` nodes and HAProxy routing each document to one node, \
            prints the router's URL, and stops everything on Ctrl-C (Docs/scaling.md).

            While it runs, lines on standard input change the cluster: `kill NODE` \
            (SIGKILL), `pause NODE` and `resume NODE` (SIGSTOP, SIGCONT), `stop NODE` \
            (a clean stop), `start NODE` (again, on its port), `add` (the next spare \
            node), and `quit`.
            """)

    @Option(help: "How many nodes to start.")
    var nodes = 3

    @Option(help: "The router's port (HAProxy's), on 127.0.0.1.")
    var port = 8080

    @Option(help: "Slots for nodes added later with `add`, declared to the router at start.")
    var spare = 1

    @Option(
        help:
            "Keep PostgreSQL's data and the logs in this folder (reused when it exists); by default a temporary one, removed at the end."
    )
    var folder: String?

    @Option(help: "Seconds a node that stops renewing keeps its documents' leases.")
    var leaseSeconds = 3.0

    @Option(help: "The web canvas's folder, passed to each node (`easel serve --web`).")
    var web: String?

    @Flag(help: "Report each event as a JSON object on a line of its own (for tests and scripts).")
    var json = false

    func validate() throws {
        guard (1...32).contains(nodes) else { throw ValidationError("--nodes must be from 1 to 32") }
        guard (0...32).contains(spare) else { throw ValidationError("--spare must be from 0 to 32") }
        guard (0.3...600).contains(leaseSeconds) else {
            throw ValidationError("--lease-seconds must be from 0.3 to 600")
        }
    }

    func run() throws {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        let cluster = try LocalCluster(
            nodes: nodes, spare: spare, routerPort: port, folder: folder, leaseSeconds: leaseSeconds, web: web,
            report: json ? Report.json : Report.text)
        defer { cluster.stop() }
        let waited = signals
        Thread {
            var signals = waited
            var signal: Int32 = 0
            sigwait(&signals, &signal)
            cluster.requestStop()
        }.start()
        // Without a terminal or pipe on standard input (a daemon's /dev/null),
        // the cluster runs on, taking no commands.
        Thread {
            while let line = readLine(), cluster.command(line) {}
        }.start()
        cluster.waitUntilStopRequested()
    }
}
