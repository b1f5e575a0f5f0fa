import ArgumentParser

/// Faults thrown at a real server, each run ending in a verdict: nothing
/// acknowledged lost, everyone converged (Docs/RELIABILITY.md).
struct Chaos: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Throw faults at a real server and check that nothing acknowledged is lost (build with -c release).",
        subcommands: [
            ChaosKill.self, ChaosNet.self, ChaosDisk.self, ChaosSoak.self, ChaosHostile.self, ChaosCluster.self,
        ]
    )
}

struct ChaosError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
