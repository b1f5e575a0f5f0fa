import ArgumentParser
import EaselModel
import EaselProtocol
import Foundation

/// Merging remote ops in the browser's engine: the same workload as
/// `easel bench merge`, decoded and applied by native Swift and by the
/// WebAssembly module under Node and, with `--chromium`, in headless
/// Chromium (one crossing per message), alternately, with medians and their
/// ratios.
struct BenchWasm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wasm",
        abstract: "Merge a canvas workload natively and in the WebAssembly module; compare them in the same run.",
        discussion: """
            Needs Node and the module Web/build.sh makes (-O); --chromium also needs Debian's chromium, \
            chromium-driver and Python's selenium (.ci/setup installs them). Build this command with -c release.
            """
    )

    @Option(help: "Entities on the canvas.") var entities = 1000
    @Option(help: "Property sets to merge.") var sets = 1_000_000
    @Option(help: "Concurrent writers.") var writers = 4
    @Option(help: "Runs of each side; medians are reported.") var runs = 5
    @Option(help: "The WebAssembly module.") var module = ".build-wasm/easel.wasm"
    @Option(help: "The Node script that times the module.") var script = "Web/bench/merge.mjs"
    @Flag(help: "Time the module in headless Chromium too (Web/bench/merge_chromium.py).") var chromium = false

    /// Passes timed in each run, and untimed ones before them, the same
    /// on every side (Web/bench/merge-core.mjs). Chromium's first pass
    /// after one warm-up still took 1.5-3x its later ones, its optimised
    /// code not yet swapped in; after three it ran at its steady pace.
    static let passes = 7
    static let warmUps = 3

    func run() throws {
        _ = try measure()
    }

    /// The measurements, printed as they come; their rows for `easel bench
    /// all`.
    func measure() throws -> [BenchRow] {
        let workload = try MergeWorkload(entities: entities, sets: sets, writers: writers, seed: 1)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("easel-wasm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(Self.workloadFile(workload)).write(to: file)
        var native: [Double] = []
        var wasm: [Double] = []
        var browser: [Double] = []
        var expected = ""
        for run in 1...runs {
            let (seconds, hash) = try workload.timeDecodeAndApply(passes: Self.passes, warmUps: Self.warmUps)
            native.append(seconds)
            expected = hash.hex
            wasm.append(try timed(["node", script, file.path, module], "the module under Node", expecting: expected))
            if chromium {
                browser.append(
                    try timed(
                        ["python3", "Web/bench/merge_chromium.py", file.path, module], "the module in Chromium",
                        expecting: expected))
            }
            print("run \(run)/\(runs) done")
        }
        let count = Double(workload.ops.count)
        print("merge in WebAssembly, \(workload.ops.count) property sets on \(entities) entities, median of \(runs):")
        print(String(format: "  native Swift                 %6.2f M sets/s", count / median(native) / 1e6))
        print(String(format: "  wasm in Node, per message    %6.2f M sets/s", count / median(wasm) / 1e6))
        if chromium {
            print(String(format: "  wasm in Chromium, per message %5.2f M sets/s", count / median(browser) / 1e6))
        }
        print(String(format: "ratio Node / native: %.2fx", median(native) / median(wasm)))
        if chromium { print(String(format: "ratio Chromium / native: %.2fx", median(native) / median(browser))) }
        print("every side reached state \(expected)")
        func rates(_ seconds: [Double]) -> [Double] { seconds.map { count / $0 / 1e6 } }
        var rows = [
            BenchRow(
                workload: "module merge", metric: "under Node", unit: "M sets/s", easel: rates(wasm),
                peer: "native Swift", peerValues: rates(native), higherIsBetter: true)
        ]
        if chromium {
            rows.append(
                BenchRow(
                    workload: "module merge", metric: "in Chromium", unit: "M sets/s", easel: rates(browser),
                    peer: "native Swift", peerValues: rates(native), higherIsBetter: true))
        }
        return rows
    }

    /// The base document as one `ops` message, then the workload's
    /// messages, each after its length.
    static func workloadFile(_ workload: MergeWorkload) -> [UInt8] {
        let base = Message.ops(
            workload.base.snapshotOps.enumerated().map { PositionedOp(position: UInt64($0.offset + 1), op: $0.element) }
        )
        var bytes: [UInt8] = []
        for message in [base.binaryEncoded()] + workload.messages {
            let length = UInt32(message.count)
            for shift in stride(from: 0, to: 32, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: length >> UInt32(shift)))
            }
            bytes += message
        }
        return bytes
    }

    /// Runs one wasm side; its seconds, once its state matches native Swift's.
    private func timed(_ command: [String], _ name: String, expecting expected: String) throws -> Double {
        let result = try runPeer(command, name: name)
        guard let seconds = result["seconds"] as? Double, let hash = result["hash"] as? String else {
            throw ValidationError("\(name) gave no seconds and hash: \(result)")
        }
        guard hash == expected else { throw ValidationError("\(name) reached state \(hash), native Swift \(expected)") }
        return seconds
    }
}
