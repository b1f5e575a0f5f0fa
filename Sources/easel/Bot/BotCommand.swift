import ArgumentParser
import EaselBot
import EaselBotScript
import EaselModel
import EaselProtocol
import Foundation

struct Bot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run headless bots that edit a document through the editor's gestures (Docs/bots.md).",
        discussion: """
            Every bot runs the script, or edits at random from its own seed, on one \\
            document. At the end every op must be acknowledged and every bot must \\
            read the state a fresh client reads from the server; the exit status is \\
            1 when a script's assertion fails or the bots did not converge, and 2 \\
            when the script cannot be read. Examples:

              easel bot --doc demo/still-life --script examples/bots/still-life.easel
              easel bot --doc load/one --random --bots 200 --duration 60s --rate 2
            """)

    @Option(help: "The server.")
    var url = "ws://127.0.0.1:8080"

    @Option(help: "The document to edit.")
    var doc: String

    @Option(help: "A bot script (Docs/bots.md) every bot runs.", completion: .file())
    var script: String?

    @Flag(help: "Seeded random edits instead of a script.")
    var random = false

    @Option(help: "How many bots, in this one process.")
    var bots = 1

    @Option(help: "The seed of the random bots (each bot's seed derives from it); a fresh one when not given.")
    var seed: UInt64?

    @Option(help: "How long to edit: 30s, 2m. Random bots default to 30s; scripts run to their end.")
    var duration: BotDuration?

    @Option(help: "Actions a second per random bot (the mean; pauses are exponential).")
    var rate = 2.0

    @Option(
        help:
            "Weights of the random actions, as kind=weight,…: \(RandomMix.Kind.allCases.map(\.rawValue).joined(separator: " "))."
    )
    var mix: String?

    @Option(help: "An access token (easel token), when the server has a secret.")
    var token: String?

    @Option(help: "How long the bots have to join.")
    var joinTimeout = BotDuration(milliseconds: 10_000)

    @Option(help: "How long, after the edits, ops have to be acknowledged and bots to converge.")
    var settleTimeout = BotDuration(milliseconds: 30_000)

    @Option(
        help: """
            The first bot's replica ID in hex, the others following it, so a script builds the same document \
            (and state hash) every time. Only on a document that has never seen these replicas.
            """)
    var replica: String?

    @Option(help: "Write the outcome as JSON here (per bot: ops, the highest acknowledged counter, state hash).")
    var report: String?

    func validate() throws {
        guard (script == nil) != !random else {
            throw ValidationError("give exactly one of --script FILE and --random")
        }
        guard (1...10_000).contains(bots) else { throw ValidationError("--bots must be from 1 to 10000") }
        guard rate > 0, rate <= 1000 else { throw ValidationError("--rate must be above 0 and at most 1000") }
        guard mix == nil || random else { throw ValidationError("--mix is for --random") }
        if let replica {
            guard let value = UInt64(replica, radix: 16), value != 0 else {
                throw ValidationError("--replica must be a replica ID in hex, not 0 (as in 00000000000000b1)")
            }
            guard value <= UInt64.max - UInt64(bots) else {
                throw ValidationError("--replica leaves no room for \(bots) bots after it")
            }
        }
    }

    func run() throws {
        let document: DocumentName
        do {
            document = try DocumentName(doc)
        } catch {
            throw ValidationError("--doc: \(error.detail)")
        }
        let plan = try behaviours()
        var configuration = BotFleet.Configuration(url: url, document: document, token: token)
        configuration.duration = (duration ?? (random ? BotDuration(milliseconds: 30_000) : nil))?.duration
        configuration.joinTimeout = joinTimeout.duration
        configuration.settleTimeout = settleTimeout.duration
        configuration.firstReplica = replica.flatMap { UInt64($0, radix: 16) }.map(ReplicaID.init(rawValue:))
        let fleet = try BotFleet(configuration, behaviours: plan.behaviours)
        let interrupt = StopOnInterrupt(fleet)
        let progress = ProgressLine()
        print("easel bot: \(bots) \(bots == 1 ? "bot" : "bots") on \(doc) at \(url); \(plan.description)")
        let cpuBefore = processCPUSeconds()
        let outcome: FleetOutcome
        do {
            outcome = try fleet.run { progress.show($0) }
        } catch {
            progress.finish()
            FileHandle.standardError.write(Data("easel bot: \(error)\n".utf8))
            throw ExitCode.failure
        }
        progress.finish()
        interrupt.cancel()
        let summary = BotSummary(outcome: outcome, cpuSeconds: processCPUSeconds() - cpuBefore)
        print(summary.text, terminator: "")
        if let report {
            try summary.json(document: doc, url: url, mode: plan.description)
                .write(to: URL(fileURLWithPath: report))
        }
        guard outcome.passed else { throw ExitCode.failure }
    }

    /// What drives each bot, and how to describe it.
    private func behaviours() throws -> (behaviours: [any BotBehaviour], description: String) {
        if let script {
            let parsed = try readScript(script)
            return (Array(repeating: ScriptRun(parsed), count: bots), "script \(script)")
        }
        var randomMix = RandomMix.standard
        if let mix {
            do {
                randomMix = try RandomMix(parsing: mix)
            } catch {
                throw ValidationError("--mix: \(error)")
            }
        }
        let seed = self.seed ?? UInt64.random(in: 0...UInt64.max)
        let behaviours = (0..<bots).map { index -> any BotBehaviour in
            RandomBot(seed: RandomBot.seed(forBot: index, of: seed), mix: randomMix, actionsPerSecond: rate)
        }
        return (behaviours, "random, seed \(seed), \(rate) actions a second each, mix \(randomMix)")
    }

    /// The parsed script; a mistake is reported with the file, line and
    /// column, and nothing is sent.
    private func readScript(_ path: String) throws -> BotScript {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            FileHandle.standardError.write(
                Data("easel bot: cannot read the script \(path): \(error.localizedDescription)\n".utf8))
            throw ExitCode(2)
        }
        do {
            return try ScriptParser.parse(text)
        } catch {
            FileHandle.standardError.write(Data("easel bot: \(path): \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}

/// A duration on the command line: 500ms, 30s, 2m.
struct BotDuration: ExpressibleByArgument {
    var milliseconds: Int64

    init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    init?(argument: String) {
        guard let milliseconds = ScriptParser.milliseconds(in: argument), milliseconds > 0 else { return nil }
        self.milliseconds = milliseconds
    }

    var duration: Duration { .milliseconds(milliseconds) }
    var defaultValueDescription: String { milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms" }
}
