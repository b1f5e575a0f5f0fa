import ArgumentParser
import EaselServer
import EaselStore
import Foundation

/// The server under load beside a bare libwebsockets relay with the same
/// batched writes, each a child process, in the same run.
struct BenchServe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Deliveries, push-to-receipt latency and idle memory of `easel serve`, against a bare relay.",
        discussion: """
            Saturation: 1 writer, --readers readers in one room, alternately through `easel serve` \
            (ops × recipients a second) and through a bare libwebsockets relay (`easel bench relay`, \
            messages × recipients), --runs times each; medians and their ratio. Latency: \
            --writers clients each pushing --rate sets a second for --latency-seconds. Memory: \
            --idle connections joined and silent. Databases go to a temporary folder.
            """)

    @Option(help: "Runs of each saturation measurement; medians are reported.") var runs = 3
    @Option(help: "Seconds the writer sends in each saturation run.") var seconds = 3.0
    @Option(help: "Readers in the saturation runs.") var readers = 50
    @Option(help: "Property sets in each of the writer's pushes.") var opsPerPush = 10
    @Option(help: "Deliveries the writer may be ahead of the slowest reader.") var window = 20_000
    @Option(help: "Writers in the latency run.") var writers = 100
    @Option(help: "Pushes a second by each writer in the latency run.") var rate = 30.0
    @Option(help: "Seconds of the latency run.") var latencySeconds = 10.0
    @Option(help: "Idle connections for the memory measurement.") var idle = 1000
    @Option(help: "The server's durability setting.") var durability: Durability = .full
    @Option(
        help: """
            A Python with pycrdt-websocket and websockets (`easel bench all` makes one): runs its server \
            (Benchmarks/peers/pycrdt_websocket_server.py) in the saturation runs too.
            """)
    var pycrdt: String?

    /// The load is one writer pushing as fast as the server takes it, and
    /// every connection in one room: a load, not an abuse.
    static let loadLimits = [
        "--max-pushes-per-second", "10000000", "--max-connections-per-room", "100000", "--max-connections", "100000",
    ]

    func run() throws {
        _ = try measure()
    }

    /// What `easel bench all` keeps of a run: the table's rows, and every
    /// push's milliseconds to receipt and to ack, for the plot.
    struct Measured {
        var rows: [BenchRow] = []
        var receiptMilliseconds: [Double] = []
        var ackMilliseconds: [Double] = []
    }

    /// The measurements, reported as they come.
    func measure() throws -> Measured {
        var measured = Measured()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easel-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func serve(_ name: String) throws -> ServedProcess {
            try ServedProcess(
                [
                    "serve", "--port", "0", "--log-level", "warning", "--db",
                    folder.appendingPathComponent("\(name).db").path,
                    "--durability", durability.rawValue,
                ] + Self.loadLimits)
        }
        let relayArguments = ["bench", "relay", "--port", "0"]

        report("saturation: 1 writer -> \(readers) readers, \(seconds) s a run, median of \(runs)")
        let saturation = Saturation(readers: readers, seconds: seconds, window: window)
        var easel: [Saturation.Sample] = []
        var relay: [Saturation.Sample] = []
        var yjs: [Saturation.Sample] = []
        let updates = try pycrdt.map { python in
            try Self.pycrdtUpdates(python: python, count: Int(seconds * 30_000), sets: opsPerPush, in: folder)
        }
        for run in 0..<runs {
            let relayProcess = try ServedProcess(relayArguments)
            relay.append(try saturation.relay(port: relayProcess.port, server: relayProcess))
            relayProcess.stop()
            let server = try serve("saturation-\(run)")
            easel.append(
                try saturation.easel(
                    port: server.port, server: server, document: "bench/saturation", opsPerPush: opsPerPush,
                    maxOps: Int(seconds * 3_000_000)))
            server.stop()
            if let python = pycrdt, let updates {
                let peer = try ServedProcess(command: [python, "Benchmarks/peers/pycrdt_websocket_server.py"])
                // A window of a few hundred: at its few hundred updates a
                // second, a window of `window` would take a minute to drain.
                var slower = saturation
                slower.window = min(window, 500)
                yjs.append(
                    try slower.pycrdt(
                        port: peer.port, server: peer, room: "saturation-\(run)", updates: updates,
                        setsPerUpdate: opsPerPush))
                peer.stop()
                report(
                    String(
                        format:
                            "  run %d: pycrdt-websocket %.2f M deliveries/s (%.1f k sets/s, CPU %.0f%%, load %.0f%%)",
                        run + 1, yjs[run].deliveriesPerSecond / 1e6, yjs[run].unitsPerSecond / 1e3,
                        yjs[run].serverCPU * 100, yjs[run].loadCPU * 100))
            }
            report(
                String(
                    format:
                        "  run %d: easel %.2f M deliveries/s (%.0f k ops/s, server CPU %.0f%%, load %.0f%%), relay %.2f M (CPU %.0f%%, load %.0f%%)",
                    run + 1, easel[run].deliveriesPerSecond / 1e6, easel[run].unitsPerSecond / 1e3,
                    easel[run].serverCPU * 100, easel[run].loadCPU * 100, relay[run].deliveriesPerSecond / 1e6,
                    relay[run].serverCPU * 100, relay[run].loadCPU * 100))
        }
        let easelRate = median(easel.map(\.deliveriesPerSecond))
        let relayRate = median(relay.map(\.deliveriesPerSecond))
        report(
            String(
                format:
                    "  easel serve: %.2f M deliveries/s (%.0f k ops/s committed and delivered, %d ops a push, durability %@)",
                easelRate / 1e6, median(easel.map(\.unitsPerSecond)) / 1e3, opsPerPush, durability.rawValue as NSString)
        )
        report(String(format: "  bare relay:  %.2f M deliveries/s (64-byte messages)", relayRate / 1e6))
        report(String(format: "  ratio: %.2fx", easelRate / relayRate))
        measured.rows.append(
            BenchRow(
                workload: "S1 fan-out", metric: "\(opsPerPush) set(s) a push, 1 -> \(readers)", unit: "M deliveries/s",
                easel: easel.map { $0.deliveriesPerSecond / 1e6 }, peer: "bare relay",
                peerValues: relay.map { $0.deliveriesPerSecond / 1e6 }, higherIsBetter: true))
        if !yjs.isEmpty {
            let yjsRate = median(yjs.map(\.deliveriesPerSecond))
            report(
                String(
                    format: "  pycrdt-websocket: %.4f M deliveries/s; ratio %.1fx", yjsRate / 1e6, easelRate / yjsRate))
            measured.rows.append(
                BenchRow(
                    workload: "S1 fan-out", metric: "\(opsPerPush) set(s) a push, 1 -> \(readers)",
                    unit: "M deliveries/s", easel: easel.map { $0.deliveriesPerSecond / 1e6 },
                    peer: "pycrdt-websocket", peerValues: yjs.map { $0.deliveriesPerSecond / 1e6 },
                    higherIsBetter: true))
        }

        report(
            "latency: \(writers) writers x \(rate) pushes/s, \(latencySeconds) s a run (first second left out), median of \(runs)"
        )
        var latencies: [PushLatency.Sample] = []
        for run in 0..<runs {
            let server = try serve("latency-\(run)")
            let sample = try PushLatency(writers: writers, rate: rate, seconds: latencySeconds)
                .run(port: server.port, server: server, document: "bench/latency")
            server.stop()
            latencies.append(sample)
            report(
                String(
                    format:
                        "  run %d: push to receipt p50 %.2f ms, p99 %.2f ms, max %.2f ms (%.0f k receipts/s); ack p50 %.2f ms, p99 %.2f ms; server CPU %.0f%%, RSS %.1f MB; load %.0f%%",
                    run + 1, percentile(sample.receiptMilliseconds, 50), percentile(sample.receiptMilliseconds, 99),
                    percentile(sample.receiptMilliseconds, 100), sample.deliveriesPerSecond / 1e3,
                    percentile(sample.ackMilliseconds, 50), percentile(sample.ackMilliseconds, 99),
                    sample.serverCPU * 100, Double(sample.serverResidentBytes) / 1e6, sample.loadCPU * 100))
        }
        report(
            String(
                format: "  push to receipt: p50 %.2f ms, p99 %.2f ms; push to ack: p50 %.2f ms, p99 %.2f ms",
                median(latencies.map { percentile($0.receiptMilliseconds, 50) }),
                median(latencies.map { percentile($0.receiptMilliseconds, 99) }),
                median(latencies.map { percentile($0.ackMilliseconds, 50) }),
                median(latencies.map { percentile($0.ackMilliseconds, 99) })))
        for (percent, name) in [(50.0, "p50"), (99.0, "p99")] {
            measured.rows.append(
                BenchRow(
                    workload: "S1 latency", metric: "push to receipt \(name), \(writers) x \(Int(rate))/s", unit: "ms",
                    easel: latencies.map { percentile($0.receiptMilliseconds, percent) }, higherIsBetter: false))
        }
        measured.receiptMilliseconds = latencies.flatMap(\.receiptMilliseconds)
        measured.ackMilliseconds = latencies.flatMap(\.ackMilliseconds)
        report(
            String(
                format: "  server CPU %.0f%%, RSS %.1f MB", median(latencies.map(\.serverCPU)) * 100,
                median(latencies.map { Double($0.serverResidentBytes) }) / 1e6))

        report("memory: \(idle) idle connections")
        let idleServer = try serve("idle")
        let easelIdle = try IdleConnections(connections: idle)
            .run(port: idleServer.port, server: idleServer, document: "bench/idle")
        idleServer.stop()
        let relayProcess = try ServedProcess(relayArguments)
        let relayIdle = try IdleConnections(connections: idle).run(
            port: relayProcess.port, server: relayProcess, document: nil)
        relayProcess.stop()
        report(
            String(
                format: "  easel serve: %.1f kB a connection (joined to one document; RSS %.1f -> %.1f MB)",
                easelIdle.bytesEach / 1e3, Double(easelIdle.residentBefore) / 1e6,
                Double(easelIdle.residentAfter) / 1e6))
        report(
            String(
                format: "  bare relay:  %.1f kB a connection (RSS %.1f -> %.1f MB)", relayIdle.bytesEach / 1e3,
                Double(relayIdle.residentBefore) / 1e6, Double(relayIdle.residentAfter) / 1e6))
        // Each connection in a room of its own: the room's cost is the rest.
        let roomsServer = try ServedProcess(
            [
                "serve", "--port", "0", "--log-level", "warning", "--db",
                folder.appendingPathComponent("rooms.db").path, "--durability", durability.rawValue,
                "--max-rooms", "\(idle + 10)",
            ] + Self.loadLimits)
        let rooms = try IdleConnections(connections: idle, documents: idle)
            .run(port: roomsServer.port, server: roomsServer, document: "bench/room")
        roomsServer.stop()
        report(
            String(
                format:
                    "  easel serve, each connection in a room of its own: %.1f kB (RSS %.1f -> %.1f MB): %.1f kB a room",
                rooms.bytesEach / 1e3, Double(rooms.residentBefore) / 1e6, Double(rooms.residentAfter) / 1e6,
                (rooms.bytesEach - easelIdle.bytesEach) / 1e3))
        measured.rows.append(
            BenchRow(
                workload: "S3 idle memory", metric: "a connection, \(idle) joined", unit: "kB",
                easel: [easelIdle.bytesEach / 1e3], peer: "bare relay", peerValues: [relayIdle.bytesEach / 1e3],
                higherIsBetter: false))
        return measured
    }
}

extension BenchServe {
    /// The writer's messages for pycrdt-websocket, made by its own library
    /// (Benchmarks/peers/pycrdt_updates.py): the first creates the entities.
    static func pycrdtUpdates(python: String, count: Int, sets: Int, in folder: URL) throws -> [[UInt8]] {
        let file = folder.appendingPathComponent("pycrdt-updates.bin")
        _ = try runPeer(
            [python, "Benchmarks/peers/pycrdt_updates.py", String(count), String(sets), file.path],
            name: "Benchmarks/peers/pycrdt_updates.py")
        let bytes = [UInt8](try Data(contentsOf: file))
        var updates: [[UInt8]] = []
        var offset = 0
        while offset + 4 <= bytes.count {
            let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
            guard offset + 4 + length <= bytes.count else { throw BenchError("\(file.path) is cut short") }
            updates.append(Array(bytes[(offset + 4)..<(offset + 4 + length)]))
            offset += 4 + length
        }
        return updates
    }
}

/// The peer `easel bench serve` runs: a bare relay on libwebsockets.
struct BenchRelay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "A bare libwebsockets relay with batched writes (the peer of `easel bench serve`).",
        shouldDisplay: false)

    @Option(help: "The port on 127.0.0.1; 0 lets the system choose.") var port = 0

    func run() throws {
        let relay: BareRelay
        do {
            relay = try BareRelay(port: port)
        } catch {
            throw CommandError(error.description)
        }
        FileHandle.standardOutput.write(Data("relay: listening on 127.0.0.1:\(relay.port)\n".utf8))
        relay.run()
    }
}

/// One line of results, written at once even when output is a file or a
/// pipe (print buffers until exit there, and these runs take minutes).
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
