import ArgumentParser
import EaselHTTP
import EaselPostgres
import EaselServer
import EaselStore
import EaselSync
import Foundation
import Logging

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve documents to collaborating clients over WebSockets.",
        discussion: """
            Clients connect to ws://HOST:PORT and name their document in their hello \
            (Protocol/README.md). Ops are stored in the SQLite file given by --db. \
            SIGINT or SIGTERM stops the server cleanly: every connection is closed \
            with 1001 and storage is flushed.

            Without a secret every client may edit every document, so the server \
            listens on loopback only. With --secret (or EASEL_SECRET) each hello must \
            carry a token from `easel token`, and any address may be used. The limits \
            and the threat model are in Docs/SECURITY.md.
            """)

    @Option(help: "The address to listen on; beyond loopback only with a secret.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 lets the system choose one.")
    var port = 8080

    @Option(help: "The SQLite database file (created when missing).")
    var db = "./easel.db"

    @Option(
        help: ArgumentHelp(
            "Serve as one node of several from this PostgreSQL database instead of --db (a libpq URL, postgres://user@host:port/database): documents, blobs and leases live there (Docs/scaling.md).",
            valueName: "url"))
    var store: String?

    @Option(help: "With --store: the name the router knows this node by (its HAProxy server name).")
    var nodeName: String?

    @Option(help: "With --store: seconds a node that stops renewing keeps its documents' leases.")
    var leaseSeconds = 3.0

    @Option(
        help: ArgumentHelp(
            "With --store: the router's host:port (HAProxy). The node asks it, after another node starts and every --rebalance-seconds, where each of its documents belongs, and hands over those the router now sends elsewhere.",
            valueName: "host:port"))
    var router: String?

    @Option(help: "With --router: seconds between the node's questions to the router.")
    var rebalanceSeconds = 10.0

    @Option(help: "full: every acknowledged op survives power loss; normal: it survives a crash of the process.")
    var durability: Durability = .full

    @Option(
        help: ArgumentHelp(
            "Require access tokens signed with this secret (at least 16 bytes). EASEL_SECRET is read when it is not given, and keeps the secret out of process listings.",
            valueName: "secret"))
    var secret: String?

    @Option(
        help: ArgumentHelp(
            "The web canvas's folder, served at / and /d/<document> (Docs/web.md). Web/build.sh makes it; without this option it is used when it exists.",
            valueName: "folder"))
    var web: String?

    @OptionGroup(title: "Limits (Docs/SECURITY.md)") var limits: LimitOptions

    @Option(help: "The largest blob (image) an upload may store, in bytes.")
    var maxBlobBytes: Int64 = BlobLimits().maxBytes

    @Option(help: "Blob uploads in flight at once; more are refused with 503.")
    var maxUploads = BlobLimits().maxUploads

    @Option(help: "Seconds a blob upload or download may make no progress before its connection is closed.")
    var blobIdleSeconds = BlobLimits().idleSeconds

    @Option(
        help: ArgumentHelp(
            "The least severe log lines written to standard error: trace, debug, info, notice, warning, error or critical.",
            valueName: "level"))
    var logLevel: Logger.Level = .info

    @Option(
        help: ArgumentHelp(
            "text: a line a record for people; json: one JSON object a line, for log shippers.", valueName: "format"))
    var logFormat: LogFormat = .text

    // For tests: a shorter window for the refusal log's summary, a storage
    // fault on one document, SQLite on a VFS whose faults `easel chaos disk`
    // switches through the file named, and rooms unloaded sooner.
    @Option(help: .hidden) var refusalLogWindowMs: Int64 = RefusalLogLimit().windowMilliseconds
    @Option(help: .hidden) var refusalLogLines = RefusalLogLimit().perWindow
    @Option(help: .hidden) var faultFailAppendsTo: String?
    @Option(help: .hidden) var diskFaults: String?
    @Option(help: .hidden) var roomUnloadDelayMs = ServerConfiguration().unloadDelay

    /// Where `Web/build.sh` puts the page, from the repository's root.
    static let defaultWebFolder = ".build-wasm/site"

    func validate() throws {
        guard (1...3600).contains(blobIdleSeconds) else {
            throw ValidationError("--blob-idle-seconds must be from 1 to 3600")
        }
        if let store, !(store.hasPrefix("postgres://") || store.hasPrefix("postgresql://")) {
            throw ValidationError("--store takes a PostgreSQL URL (postgres://…); the SQLite file is --db")
        }
        guard (0.3...600).contains(leaseSeconds) else {
            throw ValidationError("--lease-seconds must be from 0.3 to 600")
        }
        if let router {
            guard store != nil else { throw ValidationError("--router is for a node of several: give --store too") }
            guard routerAddress(router) != nil else {
                throw ValidationError("--router takes host:port, e.g. 127.0.0.1:8080 (not \(router))")
            }
        }
        guard (0.5...3600).contains(rebalanceSeconds) else {
            throw ValidationError("--rebalance-seconds must be from 0.5 to 3600")
        }
    }

    /// host:port, the port from 1 to 65535.
    private func routerAddress(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65_535).contains(port), colon > text.startIndex
        else { return nil }
        return (String(text[..<colon]), port)
    }

    func run() throws {
        var options = ServeOptions()
        options.host = host
        options.port = port
        options.databasePath = db
        if let store {
            var node = PostgresNodeOptions(url: store, nodeName: nodeName ?? "\(host):\(port)")
            node.leases = LeaseTiming(ttl: .milliseconds(Int64(leaseSeconds * 1000)))
            if let router, let (routerHost, routerPort) = routerAddress(router) {
                var rebalance = RebalanceOptions(routerHost: routerHost, routerPort: routerPort)
                rebalance.every = .milliseconds(Int64(rebalanceSeconds * 1000))
                node.rebalance = rebalance
            }
            options.postgres = node
        }
        options.durability = durability
        options.secret = serverSecret(given: secret)
        options.limits = limits.serverLimits
        options.silenceTimeoutMilliseconds = limits.silenceTimeoutMs
        options.unloadDelayMilliseconds = roomUnloadDelayMs
        options.blobs.maxBytes = maxBlobBytes
        options.blobs.maxUploads = maxUploads
        options.blobs.idleSeconds = blobIdleSeconds
        options.refusalLog.windowMilliseconds = refusalLogWindowMs
        options.refusalLog.perWindow = refusalLogLines
        options.storageFaults.failAppendsTo = faultFailAppendsTo
        let built = FileManager.default.fileExists(atPath: Self.defaultWebFolder)
        options.webFolder = web ?? (built ? Self.defaultWebFolder : nil)
        // Signals are taken by one thread that asks the server to stop;
        // every other thread, made after this, inherits the block.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        // After the block: the logger starts the log's thread.
        let (format, level) = (logFormat, logLevel)
        options.logger = Logger(label: "easel") { _ in LineLogHandler(format: format, level: level) }
        if let diskFaults { try DiskFaults.install(controlFile: diskFaults) }
        let server: EaselServer
        do {
            server = try EaselServer(options: options)
        } catch {
            throw CommandError(error.description)
        }
        let waited = signals
        let waiter = Thread {
            var signals = waited
            var signal: Int32 = 0
            sigwait(&signals, &signal)
            server.stop()
        }
        waiter.start()
        // Written straight to the file descriptor: a test or a supervisor
        // waits for this line, so it must not sit in a buffer.
        let access = options.secret == nil ? "no tokens: loopback only" : "access tokens required"
        let place =
            options.postgres.map { "PostgreSQL \(PostgresConnection.redacted($0.url)), node \($0.nodeName)" }
            ?? "database \(db), durability \(durability.rawValue)"
        announce("easel: serving \(server.url) (\(place), \(access))")
        if let folder = options.webFolder {
            announce("easel: the web canvas is at http://\(options.host):\(server.port)/ (from \(folder))")
        } else {
            announce("easel: no web canvas (\(Self.defaultWebFolder) is missing: Web/build.sh builds it)")
        }
        server.run()
        announce("easel: stopped")
    }

    private func announce(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

extension Durability: ExpressibleByArgument {}
extension LogFormat: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
