import ArgumentParser
import EaselPostgres
import Foundation

/// What the cluster's parts cost a client, in one run: a node on
/// PostgreSQL reached directly and through HAProxy, beside a single server
/// on SQLite; the same saturation and latency loads as `easel bench serve`.
struct BenchRouter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "router",
        abstract: "Deliveries and push latency of a node on PostgreSQL, directly and through HAProxy, beside SQLite.",
        discussion: """
            Starts a private PostgreSQL, one `easel serve --store` node with HAProxy (the cluster's \
            configuration) in front, and a single `easel serve` on SQLite; runs `easel bench serve`'s \
            saturation (1 writer, --readers readers) and latency (--writers writers) loads against each \
            way in, alternately, --runs times; medians.
            """)

    @Option(help: "Runs of each measurement; medians are reported.") var runs = 3
    @Option(help: "Seconds the writer sends in each saturation run.") var seconds = 3.0
    @Option(help: "Readers in the saturation runs.") var readers = 50
    @Option(help: "Property sets in each of the writer's pushes.") var opsPerPush = 10
    @Option(help: "Writers in the latency run.") var writers = 100
    @Option(help: "Pushes a second by each writer in the latency run.") var rate = 30.0
    @Option(help: "Seconds of the latency run.") var latencySeconds = 10.0

    struct Way {
        var name: String
        var port: Int
        var server: ServedProcess
    }

    func run() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easel-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let postgres = try LocalPostgres(folder: folder.appendingPathComponent("postgres").path)
        defer { postgres.stop() }
        let node = try ServedProcess(
            ["serve", "--port", "0", "--log-level", "warning", "--store", postgres.url, "--node-name", "node1"]
                + BenchServe.loadLimits)
        defer { node.stop() }
        let single = try ServedProcess(
            ["serve", "--port", "0", "--log-level", "warning", "--db", folder.appendingPathComponent("single.db").path]
                + BenchServe.loadLimits)
        defer { single.stop() }
        let routerPort = try LocalPostgres.freePort()
        let router = try HAProxyProcess(
            HAProxyConfig(
                port: routerPort, nodes: [HAProxyConfig.Node(name: "node1", port: node.port)],
                maxConnections: HAProxyProcess.connectionLimit(),
                adminSocket: folder.appendingPathComponent("haproxy.sock").path),
            folder: folder.path)
        defer { router.stop() }
        // The router's health checks pass twice before it sends anything.
        Thread.sleep(forTimeInterval: 1)
        let ways = [
            Way(name: "SQLite, direct", port: single.port, server: single),
            Way(name: "PostgreSQL node, direct", port: node.port, server: node),
            Way(name: "PostgreSQL node, HAProxy", port: routerPort, server: node),
        ]

        report(
            "saturation: 1 writer -> \(readers) readers, \(opsPerPush) ops a push, \(seconds) s a run; "
                + "latency: \(writers) writers x \(rate) pushes/s, \(latencySeconds) s a run; median of \(runs)")
        let saturation = Saturation(readers: readers, seconds: seconds, window: 20_000)
        var deliveries = [[Double]](repeating: [], count: ways.count)
        var latencies = [[PushLatency.Sample]](repeating: [], count: ways.count)
        for run in 0..<runs {
            for (index, way) in ways.enumerated() {
                deliveries[index].append(
                    try saturation.easel(
                        port: way.port, server: way.server, document: "bench/saturation-\(index)-\(run)",
                        opsPerPush: opsPerPush, maxOps: Int(seconds * 3_000_000)
                    ).deliveriesPerSecond)
                latencies[index].append(
                    try PushLatency(writers: writers, rate: rate, seconds: latencySeconds)
                        .run(port: way.port, server: way.server, document: "bench/latency-\(index)-\(run)"))
            }
        }
        report("way in                      M deliveries/s   receipt p50   p99 ms   ack p50   p99 ms")
        for (index, way) in ways.enumerated() {
            let samples = latencies[index]
            report(
                String(
                    format: "%@ %16.2f %13.2f %8.2f %9.2f %8.2f",
                    way.name.padding(toLength: 26, withPad: " ", startingAt: 0) as NSString,
                    median(deliveries[index]) / 1e6,
                    median(samples.map { percentile($0.receiptMilliseconds, 50) }),
                    median(samples.map { percentile($0.receiptMilliseconds, 99) }),
                    median(samples.map { percentile($0.ackMilliseconds, 50) }),
                    median(samples.map { percentile($0.ackMilliseconds, 99) })))
        }
        let direct: Double = median(deliveries[1])
        let routed: Double = median(deliveries[2])
        report(String(format: "through HAProxy: %.2fx the node's direct deliveries", routed / direct))
    }
}
