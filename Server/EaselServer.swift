import CLibWebSockets
import EaselAuth
import EaselHTTP
import EaselLocking
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
    public var databasePath = "./easel.db"
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

/// The collaboration server: libwebsockets on one service thread hosting
/// EaselSync's rooms, EaselStore on the storage thread.
///
/// Without a secret every client is an anonymous editor, so it then listens
/// on loopback only.
public final class EaselServer: Sendable {
    private let host: ServiceHost
    private let worker: StorageWorker
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
        do {
            worker = try StorageWorker(
                path: options.databasePath, durability: options.durability, faults: options.storageFaults,
                snapshotsStarted: { _ = easel_lower_thread_priority(StoreBlobStorage.niceness) })
            blobStorage = try StoreBlobStorage(besideDatabase: options.databasePath, durability: options.durability)
        } catch {
            throw ServeError("cannot open the database \(options.databasePath): \(error)")
        }
        guard options.blobs.maxBytes > 0, options.blobs.maxUploads > 0 else {
            throw ServeError("the largest blob and the uploads at once must be positive")
        }
        self.options = options
        var configuration = ServerConfiguration()
        configuration.limits = options.limits
        configuration.silenceTimeout = options.silenceTimeoutMilliseconds
        configuration.unloadDelay = options.unloadDelayMilliseconds
        var site: WebSite?
        if let folder = options.webFolder {
            do {
                site = try WebSite(directory: folder)
            } catch {
                throw ServeError(error.description)
            }
        }
        host = try ServiceHost(
            host: options.host == "localhost" ? "127.0.0.1" : options.host, port: options.port,
            storage: StoreRoomStorage(worker: worker, clock: options.clock), metrics: ServerMetrics(),
            configuration: configuration,
            site: site, blobs: blobStorage, blobLimits: options.blobs, authenticate: authenticate,
            log: ServerLog(logger: options.logger, refusals: options.refusalLog), clock: options.clock)
        ticker = Ticker(host: host)
    }

    public var port: Int { host.port }

    public var url: String { "ws://\(options.host):\(port)" }

    /// Serves until `stop()`, on the calling thread; then flushes storage.
    public func run() {
        logStart()
        ticker.start()
        host.run()
        ticker.stop()
        blobStorage.drain()
        worker.shutdown()
        options.logger.info("stopped: storage flushed")
    }

    /// The configuration, never the secret: only whether there is one.
    private func logStart() {
        let limits = options.limits
        options.logger.info(
            "serving",
            metadata: [
                "url": "\(url)", "event_loop": "\(host.eventLoop)", "database": "\(options.databasePath)",
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

    /// Asks the server to stop: every connection is closed with 1001 and
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
