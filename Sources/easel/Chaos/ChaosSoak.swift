import ArgumentParser
import EaselBot
import EaselBotScript
import EaselLocking
import EaselModel
import Foundation

/// Hundreds of bots come and go over many documents for a long while,
/// uploading images; the server's memory, file descriptors, rooms, queues
/// and latency are sampled every second and must stay flat once warm, and
/// every room must unload once its document is left.
struct ChaosSoak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Bots come and go on many documents for a long while; sample the server and check it stays flat."
    )

    @Option(help: "Seconds the bots come and go.")
    var seconds = 600
    @Option(help: "Seconds a document's bots stay, at least (then they settle and leave).")
    var shortestStaySeconds = 20
    @Option(help: "Seconds a document's bots stay, at most.")
    var longestStaySeconds = 90
    @Option(help: "Seconds a document rests empty between visits, at least.")
    var shortestRestSeconds = 5
    @Option(help: "Seconds a document rests empty between visits, at most.")
    var longestRestSeconds = 60
    @Option(help: "Seconds before the samples count: the server warms up (caches, pools, the first rooms).")
    var warmUpSeconds = 60
    @Option(help: "Milliseconds a room nobody is in stays loaded (the server's default: 30000).")
    var roomUnloadDelayMs = 30_000
    @Option(help: "Write every sample as CSV to this file (Tests/Soak/plot.py draws them).")
    var samples: String?
    @OptionGroup var chaos: ChaosOptions

    func validate() throws {
        guard seconds >= 10, warmUpSeconds >= 0, warmUpSeconds < seconds else {
            throw ValidationError("--seconds must be at least 10, --warm-up-seconds from 0 to below --seconds")
        }
        guard roomUnloadDelayMs >= 0 else { throw ValidationError("--room-unload-delay-ms must be at least 0") }
        guard 1 <= shortestStaySeconds, shortestStaySeconds <= longestStaySeconds, 0 <= shortestRestSeconds,
            shortestRestSeconds <= longestRestSeconds
        else {
            throw ValidationError("each shortest stay or rest must be at most its longest, a stay at least 1 s")
        }
    }

    func run() throws {
        try chaos.run("soak") { folder, shape in
            let database = folder + "/chaos.db"
            let server = try ServedProcess(
                ["serve", "--port", "0", "--db", database, "--room-unload-delay-ms", "\(roomUnloadDelayMs)"],
                log: folder + "/server.log")
            defer { server.stop() }
            let witness = Witness()
            let latencies = LatencyWindow()
            let visits = try Visits(
                shape, url: "ws://127.0.0.1:\(server.port)",
                images: ChaosImages.write(into: folder + "/images", seed: shape.seed), witness: witness,
                latencies: latencies, plan: plan)
            let began = ContinuousClock.now
            visits.start(until: began + .seconds(seconds))

            var sampled: [SoakSample] = []
            var next = began
            func sample() -> SoakSample {
                next += .seconds(1)
                Thread.sleep(forTimeInterval: max(0, (next - ContinuousClock.now).seconds))
                let sample = SoakSample(
                    seconds: (ContinuousClock.now - began).seconds, server: server,
                    metrics: ServerGauge.readAll(port: server.port), latencies: latencies.take(),
                    bots: visits.botsOnline)
                sampled.append(sample)
                return sample
            }
            while ContinuousClock.now - began < .seconds(seconds) {
                let sample = sample()
                if sampled.count % 30 == 0 { print(sample.line) }
            }
            let judged = sampled.filter { $0.seconds >= Double(warmUpSeconds) }
            print("the bots leave; sampling on until every room has unloaded")
            visits.requestFinish()
            while !visits.hasFinished(within: 0) { _ = sample() }
            let outcomes = visits.lastOutcomes
            let left = ContinuousClock.now
            let unloadWait = Duration.milliseconds(roomUnloadDelayMs) + .seconds(30)
            var rooms = sample().rooms
            while rooms != 0, ContinuousClock.now - left < unloadWait { rooms = sample().rooms }
            let unloadedAfter = (ContinuousClock.now - left).seconds
            // Freed memory goes back at most every 10 s after rooms unload
            // (`MemoryReturn`): the last sample comes after the next chance.
            if rooms == 0 {
                let settled = ContinuousClock.now
                while ContinuousClock.now - settled < .seconds(12) { _ = sample() }
            }
            if let samples { try SoakSample.csv(sampled).write(toFile: samples, atomically: true, encoding: .utf8) }

            var flatness = Flatness(judged)
            flatness.checkMemoryReturned(after: sampled.last, warm: judged.first)
            var problems = flatness.problems + visits.problems
            if rooms != 0 {
                problems.append(
                    "\(Int(rooms)) rooms still loaded \(Int(unloadWait.seconds)) s after every bot left (the unload "
                        + "delay is \(roomUnloadDelayMs) ms)")
            }
            if !server.isRunning { problems.append("the server died") }
            return ChaosVerdict(
                fault: "\(seconds) s of \(visits.visitCount) visits by \(shape.botsPerDocument) bots each",
                shape: shape, outcomes: outcomes, audit: try witness.audit(database: database),
                figures: flatness.figures + [
                    ("visits", Double(visits.visitCount)), ("roomsUnloadedSecondsAfterTheEnd", unloadedAfter),
                ],
                problems: problems)
        }
    }

    private var plan: Visits.Plan {
        Visits.Plan(
            stay: shortestStaySeconds...longestStaySeconds, rest: shortestRestSeconds...longestRestSeconds)
    }
}

/// The acknowledgements' waits since the sampler last took them, in
/// microseconds.
final class LatencyWindow: Sendable {
    private let waits = Locked<[UInt32]>([])

    func record(_ wait: Duration) {
        let (seconds, attoseconds) = wait.components
        let microseconds = UInt32(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        waits.withLock { $0.append(microseconds) }
    }

    func take() -> [UInt32] {
        waits.withLock { waits in
            defer { waits.removeAll(keepingCapacity: true) }
            return waits
        }
    }
}

/// One second of a soak: the server's process and metrics, and the
/// acknowledgements the bots received in it.
struct SoakSample {
    var seconds: Double
    var residentMegabytes: Double
    var fileDescriptors: Int
    var connections: Double
    var rooms: Double
    var queuedKilobytes: Double
    var opsAwaitingStorage: Double
    /// The acknowledgements' 99th percentile wait, in milliseconds (nil
    /// when none arrived).
    var ackP99Milliseconds: Double?
    var acknowledged: Int
    var bots: Int

    init(seconds: Double, server: ServedProcess, metrics: [String: Double]?, latencies: [UInt32], bots: Int) {
        self.seconds = seconds
        residentMegabytes = Double(server.residentBytes) / 1_048_576
        fileDescriptors = server.openFileDescriptors
        connections = metrics?["easel_connections"] ?? -1
        rooms = metrics?["easel_rooms"] ?? -1
        queuedKilobytes = (metrics?["easel_queued_bytes"] ?? -1024) / 1024
        opsAwaitingStorage = metrics?["easel_ops_awaiting_storage"] ?? -1
        acknowledged = latencies.count
        self.bots = bots
        guard !latencies.isEmpty else { return }
        let sorted = latencies.sorted()
        ackP99Milliseconds = Double(sorted[min(sorted.count - 1, sorted.count * 99 / 100)]) / 1000
    }

    var line: String {
        String(
            format: "%4.0f s: %3d bots, %4.0f connections, %3.0f rooms, RSS %.1f MB, %d fds, queued %.0f kB, "
                + "awaiting storage %.0f, ack p99 %@ ms",
            seconds, bots, connections, rooms, residentMegabytes, fileDescriptors, queuedKilobytes, opsAwaitingStorage,
            ackP99Milliseconds.map { String(format: "%.1f", $0) } ?? "-")
    }

    static func csv(_ samples: [SoakSample]) -> String {
        var lines = ["seconds,bots,connections,rooms,rss_mb,fds,queued_kb,ops_awaiting_storage,ack_p99_ms,acks"]
        for sample in samples {
            lines.append(
                [
                    String(format: "%.1f", sample.seconds), "\(sample.bots)", "\(Int(sample.connections))",
                    "\(Int(sample.rooms))", String(format: "%.2f", sample.residentMegabytes),
                    "\(sample.fileDescriptors)", String(format: "%.1f", sample.queuedKilobytes),
                    "\(Int(sample.opsAwaitingStorage))",
                    sample.ackP99Milliseconds.map { String(format: "%.2f", $0) } ?? "",
                    "\(sample.acknowledged)",
                ].joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Whether the samples after the warm-up stay flat: the second half's
/// median against the first half's, for descriptors, queues and latency.
/// Memory is reported so, not judged: the documents grow all along (their
/// histories, the tombstones of what was deleted), and their rooms with
/// them. It is judged once every room has unloaded: it must come back to
/// where it stood when the warm-up ended, or something was kept.
struct Flatness {
    var problems: [String] = []
    var figures: [(name: String, value: Double)] = []

    /// Descriptors may grow by a fifth plus 16 (bots between connections),
    /// the ack p99 and the queues may double plus a little (a busy machine).
    init(_ samples: [SoakSample]) {
        guard samples.count >= 4 else {
            problems.append("only \(samples.count) samples after the warm-up: too few to judge")
            return
        }
        let first = samples.prefix(samples.count / 2)
        let second = samples.suffix(samples.count - samples.count / 2)
        /// `factor` nil: reported, not judged.
        func check(_ name: String, _ value: (SoakSample) -> Double?, grows factor: Double?, plus slack: Double) {
            let before = median(first.compactMap(value))
            let after = median(second.compactMap(value))
            figures.append(("\(name)FirstHalfMedian", before))
            figures.append(("\(name)SecondHalfMedian", after))
            figures.append(("\(name)Max", samples.compactMap(value).max() ?? 0))
            if let factor, after > before * factor + slack {
                problems.append(
                    "\(name) grew from a median of \(String(format: "%.1f", before)) to \(String(format: "%.1f", after))"
                )
            }
        }
        check("residentMegabytes", \.residentMegabytes, grows: nil, plus: 0)
        check("fileDescriptors", { Double($0.fileDescriptors) }, grows: 1.2, plus: 16)
        check("ackP99Milliseconds", \.ackP99Milliseconds, grows: 2, plus: 1)
        check("queuedKilobytes", \.queuedKilobytes, grows: 2, plus: 256)
        check("opsAwaitingStorage", \.opsAwaitingStorage, grows: 2, plus: 1_000)
        figures.append(("roomsMax", samples.map(\.rooms).max() ?? 0))
        figures.append(("acknowledgedPerSecondMedian", median(samples.map { Double($0.acknowledged) })))
        figures.append(("connectionsMax", samples.map(\.connections).max() ?? 0))
    }

    /// Memory with no room loaded may be at most a fifth plus 16 MB above
    /// memory at the end of the warm-up (rooms loaded then).
    mutating func checkMemoryReturned(after last: SoakSample?, warm first: SoakSample?) {
        guard let last, let first else { return }
        figures.append(("residentMegabytesAtWarm", first.residentMegabytes))
        figures.append(("residentMegabytesWithNoRoom", last.residentMegabytes))
        if last.rooms == 0, last.residentMegabytes > first.residentMegabytes * 1.2 + 16 {
            problems.append(
                "with no room loaded the server held \(String(format: "%.1f", last.residentMegabytes)) MB, "
                    + "against \(String(format: "%.1f", first.residentMegabytes)) MB when the warm-up ended")
        }
    }
}
