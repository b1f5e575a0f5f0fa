import ArgumentParser
import EaselModel
import EaselStore
import Foundation

/// The server's SQLite runs on a VFS that fails writes, fails syncs and
/// fills the disk on command, for the op log or the blob file, at random
/// moments while random bots edit and upload images; and every write waits
/// in the server's memory for its sync, so each SIGKILL is a power cut.
/// Nothing acknowledged may be lost, the files must stay sound, the server
/// must stay up and say what failed, and it must recover by itself.
struct ChaosDisk: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disk",
        abstract:
            "Fail a real server's disk writes and syncs, fill its disk and cut its power under bots; check its files."
    )

    @Option(help: "Seconds the bots edit through the faults.")
    var seconds = 60
    @Option(help: "Power cuts (SIGKILL, dropping every write not yet synced) spread over the run.")
    var powerCuts = 10
    @Option(help: "Milliseconds a fault lasts, at least.")
    var shortestFaultMs = 100
    @Option(help: "Milliseconds a fault lasts, at most.")
    var longestFaultMs = 1_000
    @Option(help: "Milliseconds between faults, at least.")
    var shortestCalmMs = 200
    @Option(help: "Milliseconds between faults, at most.")
    var longestCalmMs = 2_000
    @Option(help: "The server's --durability; with normal a power cut loses acknowledged ops, and the run fails.")
    var durability: Durability = .full
    @OptionGroup var chaos: ChaosOptions

    func validate() throws {
        guard seconds >= 1, powerCuts >= 0 else {
            throw ValidationError("--seconds must be at least 1, --power-cuts at least 0")
        }
        guard 1 <= shortestFaultMs, shortestFaultMs <= longestFaultMs, 1 <= shortestCalmMs,
            shortestCalmMs <= longestCalmMs
        else {
            throw ValidationError("each shortest must be at least 1 and at most its longest")
        }
    }

    func run() throws {
        try chaos.run("disk") { folder, shape in
            let database = folder + "/chaos.db"
            let log = folder + "/server.log"
            let control = folder + "/disk-faults"
            let faults = try DiskFaults(controlFile: control)
            // A folder used before may hold switches left on.
            faults.clear()
            faults.holdUnsyncedWrites(true)
            let arguments = [
                "serve", "--db", database, "--durability", durability.rawValue, "--disk-faults", control,
            ]
            var server = try ServedProcess(arguments + ["--port", "0"], log: log)
            let port = server.port
            let witness = Witness()
            let crowd = try ChaosCrowd(
                shape, url: "ws://127.0.0.1:\(port)",
                images: ChaosImages.write(into: folder + "/images", seed: shape.seed), witness: witness)
            crowd.start()

            var random = SplitMix64(seed: shape.seed ^ 0x6469_736B)
            var cutsDue = (0..<powerCuts).map { _ in Double.random(in: 0...Double(seconds), using: &random) }.sorted()
            var tally = Tally()
            var problems: [String] = []
            let began = ContinuousClock.now
            var elapsed: Double { (ContinuousClock.now - began).seconds }

            /// SIGKILL with writes unsynced, hold the files to every promise,
            /// and start again on them.
            func cutThePower() throws {
                server.stop()
                // Its last count: the dead process can change it no more.
                let dropped = faults.unsyncedBytes
                faults.clear()
                let audit = try witness.audit(database: database)
                let unsound = try integrityProblems(database: database)
                tally.cuts.append(dropped)
                guard audit.lost == 0, unsound.isEmpty else {
                    throw ChaosError(
                        "after power cut \(tally.cuts.count): lost \(audit.missingOps.prefix(5)) "
                            + "\(audit.missingBlobs.prefix(5)); files \(unsound.prefix(5))")
                }
                let restart = ContinuousClock.now
                server = try ServedProcess(arguments + ["--port", "\(port)"], log: log)
                tally.restarts.append((ContinuousClock.now - restart).seconds)
                print(
                    "power cut \(tally.cuts.count)/\(powerCuts) at \(String(format: "%.1f", elapsed)) s dropped "
                        + "\(dropped) unsynced bytes: \(audit.ops) acknowledged ops and \(audit.blobs) stored blobs "
                        + "all in sound files")
            }

            while elapsed < Double(seconds) {
                let calm = Int.random(in: shortestCalmMs...longestCalmMs, using: &random)
                Thread.sleep(forTimeInterval: Double(calm) / 1000)
                let kind = DiskFaults.Kind.allCases.randomElement(using: &random) ?? .write
                let file = DiskFaults.File.allCases.randomElement(using: &random) ?? .ops
                let lasting = Int.random(in: shortestFaultMs...longestFaultMs, using: &random)
                let acknowledgedBefore = witness.acknowledgedSoFar
                faults.inject(kind, into: file)
                Thread.sleep(forTimeInterval: Double(lasting) / 1000)
                tally.windows[file, default: 0] += 1
                tally.acknowledgedDuring[file, default: 0] += witness.acknowledgedSoFar - acknowledgedBefore
                // A cut while a fault is on: the harshest moment there is.
                if let due = cutsDue.first, elapsed >= due {
                    cutsDue.removeFirst()
                    try cutThePower()
                } else {
                    faults.clear()
                }
                if !server.isRunning {
                    problems.append(
                        "the server was found dead after \(kind) in the \(file), at \(String(format: "%.1f", elapsed)) s"
                    )
                    server = try ServedProcess(arguments + ["--port", "\(port)"], log: log)
                }
            }
            for _ in cutsDue { try cutThePower() }

            faults.clear()
            print("the faults are over; the bots edit on for a while, then settle")
            Thread.sleep(forTimeInterval: 3)
            let outcomes = crowd.stopAndSettle()
            if !server.isRunning { problems.append("the server died after the faults were over") }
            server.stop()
            let logged = LoggedFailures(log: log)
            let injected = DiskFaults.File.allCases.flatMap { file in
                DiskFaults.Kind.allCases.map { kind in (file, kind, faults.injected(kind, into: file)) }
            }
            let failedCalls = injected.reduce(0) { $0 + $1.2 }
            if failedCalls > 0, logged.failures == 0 {
                problems.append("\(failedCalls) disk calls failed and the server's log says nothing of it")
            }
            problems += try integrityProblems(database: database).map { "the files after the run: \($0)" }
            var figures: [(name: String, value: Double)] = [
                ("seconds", Double(seconds)), ("powerCuts", Double(tally.cuts.count)),
                ("unsyncedBytesDropped", Double(tally.cuts.reduce(0, +))),
                ("restartMedianSeconds", median(tally.restarts)),
                ("opFaultWindows", Double(tally.windows[.ops] ?? 0)),
                ("blobFaultWindows", Double(tally.windows[.blobs] ?? 0)),
                ("acknowledgedDuringOpFaults", Double(tally.acknowledgedDuring[.ops] ?? 0)),
                ("acknowledgedDuringBlobFaults", Double(tally.acknowledgedDuring[.blobs] ?? 0)),
                ("failuresLogged", Double(logged.failures)), ("recoveriesLogged", Double(logged.recoveries)),
            ]
            for (file, kind, count) in injected {
                figures.append(("\(file == .ops ? "ops" : "blobs")\(kind.name)Failed", Double(count)))
            }
            let described = injected.filter { $0.2 > 0 }.map { "\($0.2) × \($0.1) in the \($0.0)" }
            return ChaosVerdict(
                fault: "\(tally.cuts.count) power cuts and \(failedCalls) failed disk calls "
                    + "(\(described.joined(separator: ", ")))",
                shape: shape, outcomes: outcomes, audit: try witness.audit(database: database), figures: figures,
                problems: problems)
        }
    }

    private struct Tally {
        var cuts: [UInt64] = []
        var restarts: [Double] = []
        var windows: [DiskFaults.File: Int] = [:]
        var acknowledgedDuring: [DiskFaults.File: Int] = [:]
    }

    /// What SQLite finds wrong with the op log and the blob file, opened
    /// only to read.
    private func integrityProblems(database: String) throws(StoreError) -> [String] {
        var problems = try OpStore(readingBackupAt: database).integrityProblems().map { "op log: \($0)" }
        if let blobs = try BlobStore.reading(besideDatabase: database) {
            problems += try blobs.integrityProblems().map { "blob file: \($0)" }
        }
        return problems
    }
}

/// The storage failures and recoveries the server's log reports: each
/// failure under an incident number (one failure may close many
/// connections, each line naming it), each recovery on a line of its own.
private struct LoggedFailures {
    var failures = 0
    var recoveries = 0

    init(log: String) {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        var incidents = Set<Substring>()
        for line in text.split(separator: "\n") {
            if let start = line.range(of: "incident=")?.upperBound {
                incidents.insert(line[start...].prefix { !$0.isWhitespace })
            }
            if line.contains("storage recovered") { recoveries += 1 }
        }
        failures = incidents.count
    }
}

extension DiskFaults.Kind {
    /// For a figure's name: "Write", "Sync", "Full".
    fileprivate var name: String {
        switch self {
        case .write: "Write"
        case .sync: "Sync"
        case .full: "Full"
        }
    }
}
