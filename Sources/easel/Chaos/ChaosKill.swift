import ArgumentParser
import EaselBot
import EaselBotScript
import EaselModel
import EaselProtocol
import Foundation
import Synchronization

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
    @Option(help: "Documents edited at once, each by its own fleet of bots.")
    var documents = 50
    @Option(help: "Random bots on each document.")
    var botsPerDocument = 2
    @Option(help: "Each bot's actions a second, on average.")
    var actionsPerSecond = 4.0
    @Option(help: "Milliseconds the server runs between a restart and the next kill, at least.")
    var shortestRunMs = 200
    @Option(help: "Milliseconds the server runs between a restart and the next kill, at most.")
    var longestRunMs = 2_000
    @Option(help: "The seed of the bots' edits and the kills' timing; random when not given.")
    var seed: UInt64?
    @Option(help: "Keep the database and images in this folder (created); a temporary one is removed.")
    var folder: String?
    @Option(help: "Write the verdict and figures as JSON to this file.")
    var report: String?

    func validate() throws {
        guard kills >= 1, documents >= 1, botsPerDocument >= 1 else {
            throw ValidationError("--kills, --documents and --bots-per-document must be at least 1")
        }
        guard 10 <= shortestRunMs, shortestRunMs <= longestRunMs else {
            throw ValidationError("--shortest-run-ms must be at least 10 and at most --longest-run-ms")
        }
    }

    func run() throws {
        let seed = seed ?? UInt64.random(in: 0...UInt64.max)
        let temporary = folder == nil
        let folder = folder ?? NSTemporaryDirectory() + "easel-chaos-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if temporary { try? FileManager.default.removeItem(atPath: folder) } }
        let database = folder + "/chaos.db"
        let images = try ChaosImages.write(into: folder + "/images", seed: seed)
        print(
            "easel chaos kill: \(kills) kills, \(documents) documents × \(botsPerDocument) bots, seed \(seed), in \(folder)")

        // Every start's log, one after another, beside the database.
        let log = folder + "/server.log"
        var server = try ServedProcess(["serve", "--port", "0", "--db", database], log: log)
        let port = server.port
        let witness = Witness()
        let fleets = try (0..<documents).map { index in
            try fleet(index, port: port, seed: seed, images: images, witness: witness)
        }
        let outcomes = Mutex<[Int: Result<FleetOutcome, FleetError>]>([:])
        let finished = DispatchGroup()
        for (index, fleet) in fleets.enumerated() {
            finished.enter()
            Thread.detachNewThread {
                let outcome = Result { () throws(FleetError) in try fleet.run() }
                outcomes.withLock { $0[index] = outcome }
                finished.leave()
            }
        }

        var timing = SplitMix64(seed: seed ^ 0x6B69_6C6C)
        var restarts: [Double] = []
        var audit = Witness.Audit()
        for kill in 1...kills {
            let runFor = Int.random(in: shortestRunMs...longestRunMs, using: &timing)
            Thread.sleep(forTimeInterval: Double(runFor) / 1000)
            server.stop()
            audit = try witness.audit(database: database)
            guard audit.lost == 0 else {
                fleets.forEach { $0.requestStop() }
                throw ChaosError("after kill \(kill): lost \(audit.missingOps.prefix(5)) \(audit.missingBlobs.prefix(5))")
            }
            let restart = ContinuousClock.now
            server = try ServedProcess(["serve", "--port", "\(port)", "--db", database], log: log)
            restarts.append((ContinuousClock.now - restart).seconds)
            print(
                "kill \(kill)/\(kills) after \(runFor) ms: \(audit.ops) acknowledged ops and \(audit.blobs) stored blobs "
                    + "all in the files; restarted in \(String(format: "%.2f", restarts.last ?? 0)) s")
        }

        print("stopping the bots; they settle against the last server")
        fleets.forEach { $0.requestStop() }
        finished.wait()
        server.stop()
        let final = try witness.audit(database: database)
        let verdict = ChaosVerdict(
            kills: kills, documents: documents, bots: documents * botsPerDocument, seed: seed,
            outcomes: outcomes.withLock { $0 }, audit: final, restartSeconds: restarts)
        print(verdict.summary)
        if let report { try verdict.json().write(to: URL(fileURLWithPath: report)) }
        guard verdict.passed else { throw ExitCode(1) }
    }

    private func fleet(_ index: Int, port: Int, seed: UInt64, images: [String], witness: Witness) throws -> BotFleet {
        let document = try DocumentName("chaos/doc-\(index)")
        var configuration = BotFleet.Configuration(url: "ws://127.0.0.1:\(port)", document: document)
        configuration.joinTimeout = .seconds(60)
        configuration.settleTimeout = .seconds(120)
        configuration.onAcknowledged = { witness.acknowledged($0, in: document) }
        configuration.onBlobStored = { witness.stored($0) }
        let mix = RandomMix(RandomMix.standard.weights.merging([.image: 1]) { $1 })
        let bots = (0..<botsPerDocument).map { bot in
            var random = RandomBot(
                seed: RandomBot.seed(forBot: index * botsPerDocument + bot, of: seed), mix: mix,
                actionsPerSecond: actionsPerSecond)
            random.imageFiles = images
            return random as any BotBehaviour
        }
        return try BotFleet(configuration, behaviours: bots)
    }
}
