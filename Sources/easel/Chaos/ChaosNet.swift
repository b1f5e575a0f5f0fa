import ArgumentParser
import EaselClientLWS
import EaselModel
import Foundation

/// Random bots reach the server through a proxy that delays, stalls, cuts
/// and hangs their connections; the bots must reconnect, resume and
/// converge, nothing acknowledged may be lost, and the server must free
/// what dead connections held within its silence timeout.
struct ChaosNet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "net",
        abstract:
            "Run bots through a proxy that delays, stalls, cuts and hangs connections; check what the server kept and freed."
    )

    @Option(help: "Seconds the bots edit through the faults.")
    var seconds = 60
    @Option(help: "Milliseconds every forwarded chunk waits, each way.")
    var delayMs = 5
    @Option(help: "Up to this many milliseconds more, at random (jitter).")
    var jitterMs = 20
    @Option(help: "Chance a chunk stalls 0.2 to 1 s, as a lost segment's retransmission would.")
    var stall = 0.01
    @Option(help: "Chance a chunk's connection is cut in the middle of it.")
    var cut = 0.005
    @Option(help: "Chance a chunk's connection hangs half-open: nothing more goes through, nothing is closed.")
    var hang = 0.003
    @Option(
        help: """
            The server's silence timeout, in milliseconds, and its blob idle timeout (rounded up to seconds): \
            how soon it must free a hung WebSocket or blob transfer.
            """)
    var silenceTimeoutMs = 10_000
    @OptionGroup var chaos: ChaosOptions

    func validate() throws {
        guard seconds >= 1, delayMs >= 0, jitterMs >= 0 else {
            throw ValidationError("--seconds must be at least 1, the delays at least 0")
        }
        guard (10_000...3_600_000).contains(silenceTimeoutMs) else {
            throw ValidationError("--silence-timeout-ms must be from 10000 to 3600000, as easel serve's")
        }
        guard [stall, cut, hang].allSatisfy({ (0...1).contains($0) }), stall + cut + hang <= 1 else {
            throw ValidationError("--stall, --cut and --hang are chances from 0 to 1, together at most 1")
        }
    }

    func run() throws {
        try chaos.run("net") { folder, shape in
            let database = folder + "/chaos.db"
            let server = try ServedProcess(
                [
                    "serve", "--port", "0", "--db", database, "--silence-timeout-ms", "\(silenceTimeoutMs)",
                    "--blob-idle-seconds", "\((silenceTimeoutMs + 999) / 1000)",
                ],
                log: folder + "/server.log")
            defer { server.stop() }
            let proxy = try FaultyProxy(
                upstreamPort: server.port,
                faults: .init(
                    delayMilliseconds: delayMs, jitterMilliseconds: jitterMs, stall: stall, cut: cut, hang: hang),
                seed: shape.seed)
            defer { proxy.stop() }
            let witness = Witness()
            let crowd = try ChaosCrowd(
                shape, url: "ws://127.0.0.1:\(proxy.port)",
                images: ChaosImages.write(into: folder + "/images", seed: shape.seed), witness: witness)
            crowd.start()
            Thread.sleep(forTimeInterval: Double(seconds))

            // The bots settle on a network that is slow but no longer breaks,
            // after editing on long enough for a connection that was opening
            // on a hung link to be given up and opened again.
            proxy.calm()
            print("calming the network; the bots edit on for a while, then settle")
            Thread.sleep(forTimeInterval: Double(ClientLoop.openingTimeoutSeconds) + 2)
            let outcomes = crowd.stopAndSettle()
            // Every bot has closed. Hung connections only the server's timeouts
            // can free: wait for it to free the last, and to hold no connection
            // at all. It closes a silent WebSocket (4006) at the silence
            // timeout, and libwebsockets then waits up to 5 s for the close
            // handshake's answer before it lets the socket go; a blob
            // transfer (they go through the proxy too) at the blob idle
            // timeout, set to the same.
            let timeout = Double((silenceTimeoutMs + 999) / 1000) + 5
            let settled = ContinuousClock.now
            var open = ServerGauge.read("easel_connections", port: server.port) ?? -1
            while open != 0 || proxy.counts.hangsFreedAfter.count < proxy.counts.hangs,
                (ContinuousClock.now - settled).seconds < timeout + 5
            {
                Thread.sleep(forTimeInterval: 0.2)
                open = ServerGauge.read("easel_connections", port: server.port) ?? -1
            }
            let faults = proxy.counts
            server.stop()
            var problems: [String] = []
            if open != 0 { problems.append("the server still held \(open) connections after every bot left") }
            if faults.hangsFreedAfter.count < faults.hangs {
                problems.append("\(faults.hangs - faults.hangsFreedAfter.count) hung connections were never freed")
            }
            // Its tick runs every 50 ms; a second of slack for a busy machine.
            let longestHang = faults.hangsFreedAfter.max() ?? 0
            if longestHang > timeout + 1 {
                problems.append(
                    "a hung connection was freed after \(longestHang) s; the silence timeout and the close wait "
                        + "are \(timeout) s")
            }
            return ChaosVerdict(
                fault: "\(seconds) s of \(faults.stalls) stalls, \(faults.cuts) cuts mid-frame and \(faults.hangs) "
                    + "half-open hangs over \(faults.connections) connections",
                shape: shape, outcomes: outcomes, audit: try witness.audit(database: database),
                figures: [
                    ("seconds", Double(seconds)), ("connections", Double(faults.connections)),
                    ("chunks", Double(faults.chunks)), ("stalls", Double(faults.stalls)), ("cuts", Double(faults.cuts)),
                    ("hangs", Double(faults.hangs)), ("hungFreedLongestSeconds", longestHang),
                    ("hungFreedMedianSeconds", median(faults.hangsFreedAfter)),
                ],
                problems: problems)
        }
    }
}
