import ArgumentParser
import Foundation

/// What every fault run shares: the crowd of bots, the seed, where the
/// files go, and the report.
struct ChaosOptions: ParsableArguments {
    @Option(help: "Documents edited at once, each by its own fleet of bots.")
    var documents = 50
    @Option(help: "Random bots on each document.")
    var botsPerDocument = 2
    @Option(help: "Each bot's actions a second, on average.")
    var actionsPerSecond = 4.0
    @Option(help: "The seed of the bots' edits and the faults' timing; random when not given.")
    var seed: UInt64?
    @Option(
        help: "Keep the database, images and the server's log in this folder (created); a temporary one is removed.")
    var folder: String?
    @Option(help: "Write the verdict and figures as JSON to this file.")
    var report: String?

    func validate() throws {
        guard documents >= 1, botsPerDocument >= 1, actionsPerSecond > 0 else {
            throw ValidationError(
                "--documents and --bots-per-document must be at least 1, --actions-per-second above 0")
        }
    }

    /// Runs `body` with a folder for the files and the crowd's shape; the
    /// verdict it returns is printed, reported, and fails the command
    /// unless it passed.
    func run(_ what: String, _ body: (_ folder: String, _ shape: ChaosCrowd.Shape) throws -> ChaosVerdict) throws {
        let shape = ChaosCrowd.Shape(
            documents: documents, botsPerDocument: botsPerDocument, actionsPerSecond: actionsPerSecond,
            seed: seed ?? UInt64.random(in: 0...UInt64.max))
        let temporary = folder == nil
        let folder = folder ?? NSTemporaryDirectory() + "easel-chaos-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if temporary { try? FileManager.default.removeItem(atPath: folder) } }
        print("easel chaos \(what): \(documents) documents × \(botsPerDocument) bots, seed \(shape.seed), in \(folder)")
        let verdict = try body(folder, shape)
        print(verdict.summary)
        if let report { try verdict.json().write(to: URL(fileURLWithPath: report)) }
        guard verdict.passed else { throw ExitCode(1) }
    }
}
