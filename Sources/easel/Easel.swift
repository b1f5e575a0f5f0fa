import ArgumentParser
import EaselModel

@main
struct Easel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "easel",
        abstract: "Easel: a collaborative canvas engine.",
        version: EaselVersion.current,
        subcommands: [
            Serve.self, Token.self, Bot.self, Replay.self, Render.self, Version.self, Log.self, DB.self, Bench.self,
            Chaos.self, Cluster.self,
        ]
    )
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print Easel's version.")

    func run() {
        print("easel \(EaselVersion.current)")
    }
}
