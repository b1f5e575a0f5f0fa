import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Convergence")
struct ConvergenceTests {
    @Test("replicas that receive the same set of ops, in any order and with duplicates, hold the same full state")
    func replicasConvergeWhateverTheDeliveryOrder() {
        var total = ConvergenceCounts(scenarios: 0)
        var diverged = false
        for seed in propertySeeds(count: 1_000, label: "convergence") {
            var scenario = ConvergenceScenario(seed: seed)
            scenario.run()
            total.add(scenario.counts)
            let divergent = scenario.divergentReplicas
            #expect(
                divergent.isEmpty,
                """
                scenario \(seed) diverged: replicas \(divergent) differ from replica 0 \
                after \(scenario.log.count) ops. Replay with EASEL_SEED=\(seed) swift test --filter Convergence
                """)
            if !divergent.isEmpty {
                diverged = true
                break
            }
            // The visible views follow from the full state, but check them
            // too: they are what users see.
            let first = scenario.replicas[0].document
            for replica in scenario.replicas.dropFirst() {
                #expect(replica.document.entities == first.entities, "scenario \(seed): visible entities differ")
                #expect(replica.document.zOrder == first.zOrder, "scenario \(seed): z-order differs")
            }
        }
        print("convergence: \(total)")
        if environment("EASEL_SEED") == nil, !diverged {
            for (name, count) in total.named {
                #expect(count > 0, "no \(name) in any scenario: the test no longer exercises them")
            }
        }
    }

    @Test(
        "editors driven by gestures, commands, undo and redo, rebasing onto snapshots now and then, converge whatever the delivery order, and undo never clobbers another replica's later write"
    )
    func editorsConvergeWhateverTheDeliveryOrder() throws {
        var total = EditorScenarioCounts()
        var diverged = false
        for seed in propertySeeds(count: 1_000, label: "editor convergence") {
            var scenario = EditorScenario(seed: seed)
            try scenario.run()
            total.add(scenario.counts)
            if let clobber = scenario.clobbers.first {
                diverged = true
                Issue.record(
                    "scenario \(seed): \(clobber). Replay with EASEL_SEED=\(seed) swift test --filter Convergence")
                break
            }
            let divergent = scenario.divergentEditors
            if !divergent.isEmpty {
                diverged = true
                Issue.record(
                    """
                    scenario \(seed) diverged: editors \(divergent) differ from editor 0 after \(scenario.log.count) ops. \
                    Replay with EASEL_SEED=\(seed) swift test --filter Convergence
                    """)
                break
            }
            // Selections only ever hold visible entities.
            for editor in scenario.editors {
                #expect(editor.state.selection.allSatisfy { editor.document[$0] != nil }, "scenario \(seed)")
            }
        }
        print("editor convergence: \(total)")
        if environment("EASEL_SEED") == nil, !diverged {
            for (name, count) in total.named {
                #expect(count > 0, "no \(name) in any scenario: the test no longer exercises them")
            }
        }
    }

    @Test("ops applied together as one batch give the state and z-order that applying them one by one gives")
    func aBatchAppliesAsOpsOneByOne() throws {
        for seed in propertySeeds(count: 200, label: "batch apply") {
            var random = SeededRandom(seed: seed)
            // Several scenarios' logs side by side: batches past the size
            // from which the z-order is put in order once, at the end.
            var log: [Op] = []
            for part in 0..<4 {
                var scenario = ConvergenceScenario(seed: seed &+ UInt64(part) &* 7919)
                scenario.run()
                log += scenario.log
            }
            var delivered = log + log.filter { _ in random.chance(0.2) }
            delivered.shuffle(using: &random)
            try #require(delivered.count >= Document.batchReorderedOnce)

            var oneByOne = Document()
            for op in delivered { oneByOne.apply(op) }
            var together = Document()
            together.apply(contentsOf: delivered)
            // Part one by one, the rest in one batch: entities already in
            // the order move within it.
            var split = Document()
            let cut = Int.random(in: 0..<delivered.count, using: &random)
            for op in delivered[..<cut] { split.apply(op) }
            split.apply(contentsOf: Array(delivered[cut...]) + delivered[..<cut].filter { _ in random.chance(0.5) })

            let reference = oneByOne.zOrderedSlots.map { oneByOne.records[Int($0)].id }
            for (name, document) in [("together", together), ("split", split)] {
                #expect(document.canonicalEncoding == oneByOne.canonicalEncoding, "seed \(seed): \(name) state differs")
                #expect(
                    document.zOrderedSlots.map { document.records[Int($0)].id } == reference,
                    "seed \(seed): \(name) z-order differs")
                #expect(document.slotsToReorder == nil, "seed \(seed): \(name) left a batch open")
            }
        }
    }
}
