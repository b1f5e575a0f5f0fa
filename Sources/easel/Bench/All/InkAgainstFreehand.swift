import ArgumentParser
import Foundation

/// Easel's ink in the module against perfect-freehand (what tldraw draws
/// with), both under Node, as `easel bench all` runs it: perfect-freehand's
/// TypeScript sources made into ES modules (`Web/bench/freehand_module.py`,
/// no npm here), then `Web/bench/freehand.mjs` once a run.
enum InkAgainstFreehand {
    static let workload = "ink"

    /// `source` holds perfect-freehand's packages/perfect-freehand/src.
    static func rows(source: String, module: String, python: String, runs: Int) throws -> [BenchRow] {
        let built = FileManager.default.temporaryDirectory.appendingPathComponent("easel-freehand-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: built) }
        _ = try BenchStore.timed(
            [python, "Web/bench/freehand_module.py", source, built.path],
            failure: "Web/bench/freehand_module.py could not make a module of \(source)")
        var easel: (whole: [Double], live: [Double]) = ([], [])
        var freehand: (whole: [Double], live: [Double]) = ([], [])
        for _ in 0..<runs {
            let result = try runPeer(
                ["node", "Web/bench/freehand.mjs", built.appendingPathComponent("index.mjs").path, module],
                name: "Web/bench/freehand.mjs")
            guard let engines = result["engines"] as? [String: Any],
                let mine = engines["easel"] as? [String: Any], let theirs = engines["freehand"] as? [String: Any],
                let mineWhole = mine["microsecondsPerSample"] as? Double,
                let mineLive = mine["liveMicrosecondsPerSample"] as? Double,
                let theirsWhole = theirs["microsecondsPerSample"] as? Double,
                let theirsLive = theirs["liveMicrosecondsPerSample"] as? Double
            else { throw ValidationError("Web/bench/freehand.mjs printed no timings: \(result)") }
            easel.whole.append(mineWhole)
            easel.live.append(mineLive)
            freehand.whole.append(theirsWhole)
            freehand.live.append(theirsLive)
        }
        return [
            BenchRow(
                workload: workload, metric: "outline a whole stroke, µs a sample", unit: "µs", easel: easel.whole,
                peer: "perfect-freehand", peerValues: freehand.whole, higherIsBetter: false),
            BenchRow(
                workload: workload, metric: "redraw a live stroke whole at every sample, µs a sample", unit: "µs",
                easel: easel.live, peer: "perfect-freehand", peerValues: freehand.live, higherIsBetter: false),
        ]
    }
}
