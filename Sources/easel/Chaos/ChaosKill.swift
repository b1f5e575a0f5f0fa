import ArgumentParser
import EaselModel
import Foundation

/// SIGKILL the server again and again while random bots edit many
/// documents and upload images; after each kill, before the restart, hold
/// its files to everything it acknowledged; at the end, every bot must
/// hold what a fresh client reads.
struct ChaosKill: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kill",
        abstract: "SIGKILL a real server under bots at random moments; check its files after every kill."
    )

    @Option(help: "How many times to kill the server.")
    var kills = 100
    @Option(help: "Milliseconds the server runs between a restart and the next kill, at least.")
    var shortestRunMs = 200
    @Option(help: "Milliseconds the server runs between a restart and the next kill, at most.")
    var longestRunMs = 2_000
    @OptionGroup var chaos: ChaosOptions

    func validate() throws {
        guard kills >= 1 else { throw ValidationError("--kills must be at least 1") }
        guard 10 <= shortestRunMs, shortestRunMs <= longestRunMs else {
            throw ValidationError("--shortest-run-ms must be at least 10 and at most --longest-run-ms")
        }
    }

    func run() throws {
        try chaos.run("kill") { folder, shape in
            let database = folder + "/chaos.db"
            // Every start's log, one after another, beside the database.
            let log = folder + "/server.log"
            var server = try ServedProcess(["serve", "--port", "0", "--db", database], log: log)
            let port = server.port
            let witness = Witness()
            let crowd = try ChaosCrowd(
                shape, url: "ws://127.0.0.1:\(port)",
                images: ChaosImages.write(into: folder + "/images", seed: shape.seed),
                witness: witness)
            crowd.start()

            var timing = SplitMix64(seed: shape.seed ^ 0x6B69_6C6C)
            var restarts: [Double] = []
            for kill in 1...kills {
                let runFor = Int.random(in: shortestRunMs...longestRunMs, using: &timing)
                Thread.sleep(forTimeInterval: Double(runFor) / 1000)
                server.stop()
                let audit = try witness.audit(database: database)
                guard audit.lost == 0 else {
                    throw ChaosError(
                        "after kill \(kill): lost \(audit.missingOps.prefix(5)) \(audit.missingBlobs.prefix(5))")
                }
                let restart = ContinuousClock.now
                server = try ServedProcess(["serve", "--port", "\(port)", "--db", database], log: log)
                restarts.append((ContinuousClock.now - restart).seconds)
                print(
                    "kill \(kill)/\(kills) after \(runFor) ms: \(audit.ops) acknowledged ops and \(audit.blobs) stored "
                        + "blobs all in the files; restarted in \(String(format: "%.2f", restarts.last ?? 0)) s")
            }

            print("stopping the bots; they settle against the last server")
            let outcomes = crowd.stopAndSettle()
            server.stop()
            return ChaosVerdict(
                fault: "\(kills) kills", shape: shape, outcomes: outcomes, audit: try witness.audit(database: database),
                figures: [
                    ("kills", Double(kills)), ("restartMedianSeconds", median(restarts)),
                    ("restartLongestSeconds", restarts.max() ?? 0),
                ])
        }
    }
}
