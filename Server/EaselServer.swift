import CLibWebSockets
import EaselAuth
import EaselHTTP
import EaselLocking
import EaselPostgres
import EaselProtocol
import EaselStore
import EaselSync
import Foundation
import Logging

/// Where and how to serve.
public struct ServeOptions: Sendable {
    public var host = "127.0.0.1"
    /// 0 lets the system choose a free port (`EaselServer.port` tells which).
    public var port = 8080
    /// The SQLite database file, unless `postgres` is set.
    public var databasePath = "./easel.db"
    /// Serve as one node of several from this PostgreSQL database instead
    /// (a libpq URL): documents, blobs and leases live there.
    public var postgres: PostgresNodeOptions?
    public var durability: Durability = .full
    /// Turns authentication on: every hello must carry a token signed with
    /// it. Only then may the server listen beyond loopback.
    public var secret: String?
    public var limits = ServerLimits()
    /// How long a joined connection may send nothing before it is closed
    /// (4006); clients ping every 5 s.
    public var silenceTimeoutMilliseconds = ServerConfiguration().silenceTimeout
    /// How long a room nobody is in stays loaded.
    public var unloadDelayMilliseconds = ServerConfiguration().unloadDelay
    /// The web canvas's folder (`Web/build.sh` makes `.build-wasm/site`);
    /// nil serves no page.
    public var webFolder: String?
    public var blobs = BlobLimits()
    /// Where the server's log goes (`LineLogHandler`, for `easel serve`);
    /// by default nowhere.
    public var logger = Logger(label: "easel") { _ in SwiftLogNoOpLogHandler() }
    /// Refusals of one code logged in a window at most; the rest are
    /// counted and said in one line when the window ends.
    public var refusalLog = RefusalLogLimit()
    /// Faults tests switch on (never an operator).
    public var storageFaults = StorageFaults()
    /// The time the server stamps events and ops with.
    public var clock = HostClock.system

    public init() {}
}

/// How a node serves from PostgreSQL (Docs/scaling.md).
public struct PostgresNodeOptions: Sendable {
    public var url: String
    /// The name the router knows this node by (HAProxy's server name): it
    /// is what another node tells a client that asked it for a document
    /// this one holds.
    public var nodeName: String
    public var leases = LeaseTiming()
    /// How long a room's load waits for a draining node to release the
    /// document's lease, before its clients are told the document moved.
    public var leaseWait: Duration = .seconds(5)
    /// How long a stopping node keeps its connections, refusing new ones
    /// and failing its health check, before it closes them with `moved`:
    /// the router's checks (every 250 ms, two failures) notice meanwhile.
    public var drainMilliseconds: Int64 = 750
    /// Where the router is, to hand documents to the node it now sends
    /// them to (an added one, one back after a stop); nil never moves a
    /// document while its room stays loaded here.
    public var rebalance: RebalanceOptions?

    public init(url: String, nodeName: String) {
        self.url = url
        self.nodeName = nodeName
    }
}

/// The collaboration server: libwebsockets on one service thread hosting
/// EaselSync's rooms, EaselStore (SQLite) or EaselPostgres on the storage
/// threads.
///
/// Without a secret every client is an anonymous editor, so it then listens
/// on loopback only.
public final class EaselServer: Sendable {
    private let host: ServiceHost
    private let storage: any RoomStorage
    private let rebalancer: Rebalancer?
    /// Flushes storage and ends its threads (a node's leases released).
    private let stopStorage: @Sendable () -> Void
    private let blobStorage: StoreBlobStorage
    private let ticker: Ticker
    public let options: ServeOptions

    public init(options: ServeOptions) throws(ServeError) {
        if let problem = options.limits.problems.first { throw ServeError("limit out of range: \(problem)") }
        var authenticate: Authenticator = { _, _ in .success(.anonymousEditor) }
        if let secret = options.secret {
            do {
                authenticate = try TokenAuthority(secret: secret).authenticator
            } catch {
                throw ServeError("cannot use the secret: \(error)")
            }
        } else if !Self.isLoopback(options.host) {
            throw ServeError(
                "refusing to listen on \(options.host) without a secret: anyone who can reach it could edit every document. Set --secret or EASEL_SECRET to require access tokens (easel token), or listen on 127.0.0.1"
            )
        }
        guard options.blobs.maxBytes > 0, options.blobs.maxUploads > 0 else {
            throw ServeError("the largest blob and the uploads at once must be positive")
        }
        // Checked before storage opens: nothing to stop if they fail.
        var site: WebSite?
        if let folder = options.webFolder {
            do {
                site = try WebSite(directory: folder)
            } catch {
                throw ServeError(error.description)
            }
        }
        var held: HeldLeases?
        var drain: (@Sendable () -> Void)?
        var keeper: LeaseKeeper?
        if let postgres = options.postgres {
            let leases = HeldLeases()
            (storage, blobStorage, stopStorage, drain, keeper) = try Self.openPostgres(
                postgres, held: leases, options: options)
            held = leases
        } else {
            do {
                let worker = try StorageWorker(
                    path: options.databasePath, durability: options.durability, faults: options.storageFaults,
                    snapshotsStarted: { _ = easel_lower_thread_priority(StoreBlobStorage.niceness) })
                storage = StoreRoomStorage(worker: worker, clock: options.clock)
                stopStorage = { worker.shutdown() }
                blobStorage = try StoreBlobStorage(besideDatabase: options.databasePath, durability: options.durability)
            } catch {
                throw ServeError("cannot open the database \(options.databasePath): \(error)")
            }
        }
        self.options = options
        var configuration = ServerConfiguration()
        configuration.limits = options.limits
        configuration.silenceTimeout = options.silenceTimeoutMilliseconds
        configuration.unloadDelay = options.unloadDelayMilliseconds
        do {
            host = try ServiceHost(
                host: options.host == "localhost" ? "127.0.0.1" : options.host, port: options.port,
                storage: storage, metrics: ServerMetrics(),
                configuration: configuration,
                site: site, blobs: blobStorage, blobLimits: options.blobs, authenticate: authenticate,
                log: ServerLog(logger: options.logger, refusals: options.refusalLog), clock: options.clock)
        } catch {
            // The port is taken, say: storage's threads (a node's leases) end here.
            blobStorage.drain()
            stopStorage()
            throw error
        }
        ticker = Ticker(host: host)
        var rebalancer: Rebalancer?
        if let held, let keeper, let postgres = options.postgres, let rebalance = postgres.rebalance {
            rebalancer = Rebalancer(
                options: rebalance, nodeName: postgres.nodeName, held: held, keeper: keeper, logger: options.logger
            ) { [host] document, node in
                _ = host.inbox.add(.storage(.handOver(document, to: node)))
                host.wake()
            }
        }
        self.rebalancer = rebalancer
        if let held, let keeper, let storage = storage as? PostgresRoomStorage {
            host.leaseGuard = LeaseGuard(keeper: keeper, held: held, storage: storage)
        }
        if let drain, let postgres = options.postgres {
            host.nodeName = postgres.nodeName
            host.onDrain = { [rebalancer] in
                // Its documents go wherever the router sends them now.
                rebalancer?.stop(waiting: false)
                drain()
            }
            host.shutdown.drainMilliseconds = postgres.drainMilliseconds
        }
        // A lease another node took closes that document's room here.
        held?.whenLost { [host] documents in
            for document in documents {
                let failure = StorageFailure(.moved(to: nil), "another node took the lease")
                _ = host.inbox.add(.storage(.evicted(document, failure)))
            }
            host.wake()
        }
    }

    public var port: Int { host.port }

    public var url: String { "ws://\(options.host):\(port)" }

    /// Serves until `stop()`, on the calling thread; then flushes storage.
    public func run() {
        logStart()
        ticker.start()
        rebalancer?.start()
        host.run()
        ticker.stop()
        rebalancer?.stop(waiting: true)
        blobStorage.drain()
        stopStorage()
        options.logger.info("stopped: storage flushed")
    }

    /// A node's storage in PostgreSQL: the commit, load and snapshot
    /// threads, the lease keeper (registering the node), and the blob
    /// thread, each on a connection of its own.
    private static func openPostgres(
        _ postgres: PostgresNodeOptions, held: HeldLeases, options: ServeOptions
    ) throws(ServeError) -> (
        room: any RoomStorage, blobs: StoreBlobStorage, stop: @Sendable () -> Void, drain: @Sendable () -> Void,
        keeper: LeaseKeeper
    ) {
        let place = PostgresConnection.redacted(postgres.url)
        do {
            let worker = try PostgresWorker(
                url: postgres.url, snapshotsStarted: { _ = easel_lower_thread_priority(StoreBlobStorage.niceness) })
            let keeper: LeaseKeeper
            do {
                keeper = try LeaseKeeper(
                    url: postgres.url, name: postgres.nodeName, address: "\(options.host):\(options.port)",
                    timing: postgres.leases, lost: { held.lost($0) })
            } catch {
                worker.shutdown()
                throw error
            }
            let blobs: PostgresBlobRows
            do {
                blobs = try PostgresBlobRows(url: postgres.url, now: options.clock.now.rawValue)
            } catch {
                worker.shutdown()
                keeper.stop()
                throw error
            }
            let storage = PostgresRoomStorage(
                worker: worker, keeper: keeper, held: held, clock: options.clock, leaseWait: postgres.leaseWait,
                askHolders: postgres.rebalance != nil)
            return (
                storage, StoreBlobStorage(rows: blobs),
                {
                    // The rooms' last appends commit before the leases go.
                    worker.shutdown()
                    keeper.stop()
                },
                { keeper.drain() },
                keeper
            )
        } catch {
            throw ServeError("cannot use the PostgreSQL database \(place): \(error)")
        }
    }

    /// The configuration, never the secret: only whether there is one.
    private func logStart() {
        let limits = options.limits
        options.logger.info(
            "serving",
            metadata: [
                "url": "\(url)", "event_loop": "\(host.eventLoop)",
                "database": "\(options.postgres.map { PostgresConnection.redacted($0.url) } ?? options.databasePath)",
                "node": "\(options.postgres?.nodeName ?? "single")",
                "durability": "\(options.durability.rawValue)",
                "access": "\(options.secret == nil ? "no tokens, loopback only" : "tokens required")",
                "web": "\(options.webFolder ?? "none")", "max_connections": "\(limits.connections)",
                "max_rooms": "\(limits.rooms)", "max_message_bytes": "\(limits.messageBytes)",
                "max_queued_bytes": "\(limits.queuedBytes)", "max_blob_bytes": "\(options.blobs.maxBytes)",
                "max_uploads": "\(options.blobs.maxUploads)",
                "max_document_entities": "\(limits.entitiesPerDocument)",
                "max_document_bytes": "\(limits.contentBytesPerDocument)",
            ])
    }

    /// Asks the server to stop: every connection is closed with 1001 (4007
    /// from a node of several, after its drain) and
    /// storage is flushed before `run()` returns. Safe from any thread.
    public func stop() {
        host.inbox.requestStop()
        host.wake()
    }

    /// Only `localhost` and loopback addresses (127.0.0.0/8, ::1), never a
    /// host name that merely starts like one.
    static func isLoopback(_ host: String) -> Bool {
        var address = in_addr()
        if inet_pton(AF_INET, host, &address) == 1 { return host.hasPrefix("127.") }
        return host == "localhost" || host == "::1"
    }
}

/// Wakes the service thread every 50 ms so timers run: an lws timer that
/// short burns a core (seen with libwebsockets 4.1 here). lws's own timers
/// (the close and HTTP timeouts) lean on it too: on the libev loop they
/// run from lws's idle watcher, which only a socket event starts, so this
/// wake bounds their delay to about 50 ms while the loop has quiet moments
/// (Docs/server.md).
private final class Ticker: Sendable {
    private let host: ServiceHost
    /// Whether it runs, and whether it started (so `stop` knows to wait).
    private let state = Locked((running: false, started: false))
    private let done = DispatchSemaphore(value: 0)

    init(host: ServiceHost) {
        self.host = host
    }

    func start() {
        state.withLock { $0 = (running: true, started: true) }
        let thread = Thread { [self] in
            while state.withLock({ $0.running }) {
                Thread.sleep(forTimeInterval: 0.05)
                host.wake()
            }
            done.signal()
        }
        thread.name = "easel-ticker"
        thread.start()
    }

    /// Stops the thread and waits for it, so nothing wakes a destroyed context.
    func stop() {
        let started = state.withLock { state in
            state.running = false
            return state.started
        }
        if started { done.wait() }
    }
}
