import EaselSync
import EaselTestSupport
import Testing

@Suite("Network simulation")
struct SimulationTests {
    /// Seeds per CI run, spread over shards so they run in parallel.
    static let shards = 8
    static let seedsPerShard = 125

    @Test(
        "every client converges with the room's committed state; nothing acknowledged is lost or committed twice",
        arguments: 0..<shards)
    func clientsConvergeWithTheCommittedState(shard: Int) throws {
        // A replayed seed runs once, not once a shard.
        if environment("EASEL_SEED") != nil, shard > 0 { return }
        var total = SimulationCounts(seeds: 0)
        let seeds = propertySeeds(count: Self.seedsPerShard, label: "network simulation, shard \(shard)")
        for seed in seeds + (shard == 0 ? Self.regressionSeeds : []) {
            var simulation = try NetworkSimulation(seed: seed)
            try simulation.run()
            let failures = simulation.verdict()
            total.add(simulation.counts)
            if !failures.isEmpty {
                Issue.record(
                    """
                    seed \(seed) failed: \(failures.prefix(5).joined(separator: "; ")). \
                    Replay with EASEL_SEED=\(seed) swift test --filter SimulationTests
                    """)
                return
            }
        }
        print("network simulation, shard \(shard): \(total)")
        guard environment("EASEL_SEED") == nil else { return }
        for (name, count) in total.named {
            #expect(count > 0, "no \(name) in any seed: the simulation no longer exercises them")
        }
    }

    @Test("the simulation catches a room that acknowledges pushes before storage commits them")
    func theSimulationCatchesAcknowledgementsBeforeCommit() throws {
        var configuration = ServerConfiguration()
        configuration.faults.acknowledgeBeforeCommit = true
        var random = SeededRandom(seed: UInt64.random(in: 0...UInt64.max))
        for _ in 0..<200 {
            var simulation = try NetworkSimulation(seed: random.next(), configuration: configuration)
            try simulation.run()
            if !simulation.verdict().isEmpty { return }
        }
        Issue.record("200 seeds with acknowledgements before commit and no failure: the simulation misses lost acks")
    }

    /// Seeds that once failed, kept so their fixes stay fixed.
    static let regressionSeeds: [UInt64] = []
}
