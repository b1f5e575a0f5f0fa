import EaselTestSupport
import Testing

@Suite("Crash safety", .serialized)
struct CrashSafetyTests {
    @Test func everyAcknowledgedOpSurvivesSIGKILLAtRandomMoments() throws {
        let seed = propertySeeds(count: 1, label: "crash safety")[0]
        var harness = CrashHarness(seed: seed)
        let outcome = try harness.run(kills: 20, acknowledgeBeforeCommit: false)
        print(
            "crash safety: \(outcome.kills) kills, \(outcome.acknowledged) acknowledged ops, \(outcome.lost.count) lost"
        )
        #expect(outcome.kills >= 20)
        #expect(outcome.acknowledged > 0)
        #expect(outcome.lost.isEmpty, "EASEL_SEED=\(seed): lost \(outcome.lost.prefix(10))")
        #expect(outcome.gaps.isEmpty, "EASEL_SEED=\(seed): gaps at \(outcome.gaps.prefix(10))")
        #expect(outcome.duplicates.isEmpty)
    }

    /// Proof the test above can fail: with the storage worker acknowledging
    /// before it commits, the same kills find acknowledged ops missing.
    @Test func theSameTestCatchesALossWhenAcknowledgementsComeBeforeCommits() throws {
        let seed = propertySeeds(count: 1, label: "crash safety with a fault")[0]
        var harness = CrashHarness(seed: seed)
        let outcome = try harness.run(kills: 60, acknowledgeBeforeCommit: true, untilLoss: true)
        print("crash safety with a fault: loss found after \(outcome.kills) kills")
        #expect(!outcome.lost.isEmpty, "EASEL_SEED=\(seed): no loss found in \(outcome.kills) kills")
    }
}
