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
}
