import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Snapshots")
struct SnapshotTests {
    /// Loading a snapshot and then the ops after it gives the state of the
    /// full history, whatever stale, duplicate or out-of-order ops arrive
    /// after the snapshot was taken.
    @Test func snapshotThenTailGivesTheStateOfTheFullHistory() {
        var checked = 0
        for seed in propertySeeds(count: 300, label: "snapshot + tail") {
            var scenario = ConvergenceScenario(seed: seed)
            scenario.run()
            var random = SeededRandom(seed: seed ^ 0x5A5A)
            let log = scenario.log
            let cut = Int.random(in: 0...log.count, using: &random)
            let before = Document(applying: Array(log[..<cut]).shuffled(using: &random))

            let snapshot = before.snapshotOps
            let loaded = Document(applying: snapshot.shuffled(using: &random))
            #expect(loaded.canonicalEncoding == before.canonicalEncoding, "EASEL_SEED=\(seed): snapshot alone")
            #expect(snapshot.allSatisfy { (try? $0.validate()) != nil }, "EASEL_SEED=\(seed): an invalid snapshot op")

            // The tail, plus ops the snapshot already covers: resent,
            // superseded long ago, or arriving out of order.
            var tail = Array(log[cut...]) + log[..<cut].filter { _ in random.chance(0.3) }
            tail.shuffle(using: &random)
            var resumed = loaded
            for op in tail { resumed.apply(op) }
            let full = Document(applying: log)
            #expect(resumed.canonicalEncoding == full.canonicalEncoding, "EASEL_SEED=\(seed): snapshot + tail")
            if !log.isEmpty { checked += 1 }
        }
        #expect(checked > 0)
    }

    @Test func aSnapshotHasFewerOpsThanAHistoryThatOverwroteItself() {
        let star = EntityID(opID(1, alice))
        var log = [op(1, alice, .create(.emoji, [.character("⭐️")]))]
        for counter in 2...101 { log.append(op(UInt64(counter), alice, .set(star, .x(Float(counter))))) }
        let snapshot = Document(applying: log).snapshotOps
        #expect(snapshot.count == 2)
        #expect(Document(applying: snapshot)[star]?.transform.x == 101)
    }
}
