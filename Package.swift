// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Easel",
    // What the library targets use sets the floor: `String(validating:as:)`
    // (EaselProtocol's decoders) and Synchronization's `Mutex` and `Atomic`
    // (EaselBot) first shipped in macOS 15 and iOS 18; `Duration` and
    // `ContinuousClock` (EaselSync, EaselClient) in macOS 13 and iOS 16.
    // Linux ignores this, and nothing here builds for an Apple platform.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "EaselModel", targets: ["EaselModel"]),
        .library(name: "EaselProtocol", targets: ["EaselProtocol"]),
        .library(name: "EaselStore", targets: ["EaselStore"]),
        .library(name: "EaselPostgres", targets: ["EaselPostgres"]),
        .library(name: "EaselSync", targets: ["EaselSync"]),
        .library(name: "EaselAuth", targets: ["EaselAuth"]),
        .library(name: "EaselHTTP", targets: ["EaselHTTP"]),
        .library(name: "EaselServer", targets: ["EaselServer"]),
        .library(name: "EaselClient", targets: ["EaselClient"]),
        .library(name: "EaselClientLWS", targets: ["EaselClientLWS"]),
        .library(name: "EaselClientURLSession", targets: ["EaselClientURLSession"]),
        .library(name: "EaselClientHTTP", targets: ["EaselClientHTTP"]),
        .library(name: "EaselBotScript", targets: ["EaselBotScript"]),
        .library(name: "EaselBot", targets: ["EaselBot"]),
        .library(name: "EaselRender", targets: ["EaselRender"]),
        .library(name: "EaselReplay", targets: ["EaselReplay"]),
        .executable(name: "easel", targets: ["easel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    ],
    targets: [
        // The document, its CRDT ops and the z-order keys. Standard library only,
        // so the WebAssembly module compiles it with Embedded Swift (Web/build.sh).
        .target(name: "EaselModel"),
        // Messages and their binary and JSON codecs (Protocol/README.md).
        // Standard library only, like the model: the WebAssembly module embeds it.
        .target(name: "EaselProtocol", dependencies: ["EaselModel"]),
        // The sans-IO server rooms and client sync engine (Docs/sync.md).
        // Standard library only: the WebAssembly module embeds the client half.
        .target(name: "EaselSync", dependencies: ["EaselModel", "EaselProtocol"]),
        // A document as deterministic SVG (Docs/debugging.md). Model only.
        .target(name: "EaselRender", dependencies: ["EaselModel"]),
        // Stepping through an op log: checks, searches, diffs, filmstrips.
        .target(name: "EaselReplay", dependencies: ["EaselModel", "EaselProtocol", "EaselRender"]),
        // libFuzzer's entry point, weakly linked, for the fuzzer below.
        .target(name: "CFuzzerDriver"),
        // SQLite's C API, and a shim for what Swift cannot import of it.
        .systemLibrary(name: "CEaselSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The op log and snapshots in SQLite; the only target that queries it.
        // A lock ThreadSanitizer can see: Synchronization's Mutex, plus the
        // sanitizer's annotations when it is in the process.
        .target(name: "EaselLocking"),
        .target(name: "EaselStore", dependencies: ["EaselModel", "EaselProtocol", "CEaselSQLite", "EaselLocking"]),
        // libpq, PostgreSQL's C client: synchronous like SQLite's API, with
        // pipeline mode for group commit (Docs/scaling.md says why not
        // postgres-nio).
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // The op log, snapshots, blobs, nodes and fenced leases in PostgreSQL,
        // for several nodes (Docs/scaling.md); and a private server for
        // `easel cluster` and the tests.
        .target(
            name: "EaselPostgres",
            dependencies: ["EaselModel", "EaselProtocol", "EaselStore", "EaselLocking", "CLibPQ"]),
        // A SQLite VFS that fails writes and syncs on command and holds
        // unsynced writes, for `easel serve --disk-faults` under `easel chaos
        // disk` (Docs/RELIABILITY.md); it works below SQLite, beside EaselStore.
        .target(name: "CEaselDiskFaults", dependencies: ["CEaselSQLite"]),
        // Signed access tokens: who a connection is, on which documents, in
        // what role (Docs/SECURITY.md).
        .target(
            name: "EaselAuth",
            dependencies: ["EaselProtocol", "EaselSync", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // What the server answers over HTTP, as values: request heads checked
        // before libwebsockets sees them, routes, blob paths, the web site's
        // files. Pure, so the fuzzer takes it without the server's C libraries.
        .target(name: "EaselHTTP", dependencies: ["EaselModel", "EaselProtocol", "EaselSync"]),
        // libwebsockets' C API, and a shim for what Swift cannot import of it.
        .systemLibrary(
            name: "CLibWebSockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
        // The collaboration server: libwebsockets hosting EaselSync's rooms over
        // EaselStore (Docs/sync.md, Docs/server.md).
        .target(
            name: "EaselServer",
            dependencies: [
                "EaselModel", "EaselProtocol", "EaselSync", "EaselStore", "EaselPostgres", "EaselAuth", "EaselHTTP",
                "CLibWebSockets", "EaselLocking",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Server"
        ),
        // The client engine on any WebSocket behind WebSocketTransport, an
        // in-process server, and the blob downloader and caches on any HTTP
        // behind BlobTransport. No system library: ClientProductsTests checks
        // that neither it nor EaselClientURLSession depends on one, and that
        // swift-crypto (SHA-256; CryptoKit on Apple platforms) is the only
        // package they take.
        .target(
            name: "EaselClient",
            dependencies: [
                "EaselModel", "EaselProtocol", "EaselSync", "EaselLocking", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The client transport on libwebsockets: one loop thread for many
        // connections (the bots, the tests).
        .target(
            name: "EaselClientLWS",
            dependencies: ["EaselClient", "EaselProtocol", "EaselSync", "CLibWebSockets"]
        ),
        // The client transport on Foundation's URLSessionWebSocketTask, where
        // Foundation has it; its own target so that nothing else links
        // FoundationNetworking (and libcurl) on Linux.
        .target(
            name: "EaselClientURLSession",
            dependencies: ["EaselClient", "EaselProtocol", "EaselSync"]
        ),
        // Blobs over HTTP on AsyncHTTPClient, for the bots, the tools and the
        // tests (and any app that runs SwiftNIO).
        .target(
            name: "EaselClientHTTP",
            dependencies: [
                "EaselClient", "EaselModel", "EaselProtocol",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The bots' script language: parsing, and running a script through
        // the editor's gestures and commands on a sync client. Sans-IO.
        .target(name: "EaselBotScript", dependencies: ["EaselModel", "EaselSync"]),
        // Headless bots: scripts and seeded random edits through the editor's
        // own gestures and commands (Random/: sans-IO), and fleets of
        // them on one client loop against a server (Fleet/) (Docs/bots.md).
        .target(
            name: "EaselBot",
            dependencies: [
                "EaselModel", "EaselSync", "EaselBotScript", "EaselClient", "EaselClientLWS", "EaselClientHTTP",
                "EaselLocking",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // A child process the crash-safety tests kill at random moments.
        .executableTarget(name: "StoreCrashProbe", dependencies: ["EaselStore", "EaselProtocol", "EaselLocking"]),
        // The web canvas's bridge to its module (Web/build.sh compiles it for
        // WebAssembly), built natively too so the fuzzer can call its exports.
        .target(name: "EaselWeb", dependencies: ["EaselModel", "EaselProtocol", "EaselSync", "EaselRender"], path: "Web/Bridge"),
        // libFuzzer targets for everything that parses outside input
        // (Docs/RELIABILITY.md); built normally, it replays a corpus through
        // the same checks.
        .executableTarget(
            name: "EaselFuzzer",
            dependencies: [
                "EaselModel", "EaselProtocol", "EaselSync", "EaselHTTP", "EaselBotScript", "EaselWeb", "CFuzzerDriver",
            ]
        ),
        .executableTarget(
            name: "easel",
            dependencies: [
                "EaselModel",
                "EaselLocking",
                "EaselProtocol",
                "EaselStore",
                "EaselPostgres",
                "EaselAuth",
                "EaselServer",
                "EaselHTTP",
                "EaselBot",
                "EaselBotScript",
                "EaselRender",
                "EaselReplay",
                "EaselClient",
                "EaselClientLWS",
                "CEaselDiskFaults",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // `easel bench blobs` times Easel's blob endpoint and nginx with one HTTP client.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // Fixtures and seeded randomness shared by the test targets.
        .target(
            name: "EaselTestSupport",
            dependencies: [
                "EaselModel",
                "EaselLocking",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/EaselTestSupport"
        ),
        .testTarget(
            name: "EaselModelTests",
            dependencies: [
                "EaselModel",
                "EaselTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "EaselProtocolTests",
            dependencies: [
                "EaselProtocol",
                "EaselTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "EaselStoreTests",
            dependencies: ["EaselStore", "EaselLocking", "EaselTestSupport", "StoreCrashProbe"]
        ),
        .testTarget(
            name: "EaselClientTests",
            dependencies: ["EaselClient", "EaselLocking", "EaselSync", "EaselTestSupport"]
        ),
        .testTarget(
            name: "EaselServerTests",
            dependencies: [
                "EaselClient", "EaselClientLWS", "EaselClientURLSession", "EaselSync", "EaselStore", "EaselProtocol",
                "EaselAuth", "EaselBot", "EaselBotScript", "EaselRender", "EaselReplay", "EaselTestSupport", "easel",
                "EaselClientHTTP", "EaselHTTP", "EaselLocking", "EaselPostgres",
            ]
        ),
        .testTarget(
            name: "EaselPostgresTests",
            dependencies: ["EaselPostgres", "EaselStore", "EaselProtocol", "EaselModel", "EaselTestSupport"]
        ),
        .testTarget(
            name: "EaselBotTests",
            dependencies: [
                "EaselBot", "EaselBotScript", "EaselModel", "EaselProtocol", "EaselSync", "EaselRender",
                "EaselTestSupport",
            ]
        ),
        .testTarget(
            name: "EaselRenderTests",
            dependencies: ["EaselRender", "EaselModel", "EaselTestSupport"],
            // Read from the source tree by path, not bundled.
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "EaselReplayTests",
            dependencies: ["EaselReplay", "EaselModel", "EaselProtocol", "EaselTestSupport"]
        ),
        .testTarget(
            name: "EaselAuthTests",
            dependencies: ["EaselAuth", "EaselProtocol", "EaselSync", "EaselTestSupport"]
        ),
        .testTarget(
            name: "EaselFuzzerTests",
            dependencies: ["EaselFuzzer", "EaselTestSupport"]
        ),
        .testTarget(name: "EaselLockingTests", dependencies: ["EaselLocking"]),
        .testTarget(
            name: "EaselSyncTests",
            dependencies: ["EaselSync", "EaselLocking", "EaselTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
