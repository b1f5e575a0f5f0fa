import ArgumentParser
import EaselModel
import EaselProtocol
import Foundation

/// Merging remote ops in the browser's engine: the same workload as
/// `easel bench merge`, decoded and applied by native Swift and by the
/// WebAssembly module under Node (one crossing per message), alternately,
/// with medians and their ratio.
struct BenchWasm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wasm",
        abstract: "Merge a canvas workload natively and in the WebAssembly module; compare them in the same run.",
        discussion: """
            Needs Node and the module Web/build.sh makes. Build this command with -c release; \
            the module is always built -Osize.
            """
    )

    @Option(help: "Entities on the canvas.") var entities = 1000
    @Option(help: "Property sets to merge.") var sets = 1_000_000
    @Option(help: "Concurrent writers.") var writers = 4
    @Option(help: "Runs of each side; medians are reported.") var runs = 5
    @Option(help: "The WebAssembly module.") var module = ".build-wasm/easel.wasm"
    @Option(help: "The Node script that times the module.") var script = "Web/bench/merge.mjs"

    func run() throws {
        let workload = try MergeWorkload(entities: entities, sets: sets, writers: writers, seed: 1)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("easel-wasm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(Self.workloadFile(workload)).write(to: file)
        var native: [Double] = []
        var wasm: [Double] = []
        var expected = ""
        for run in 1...runs {
            let (seconds, hash) = try workload.timeDecodeAndApply()
            native.append(seconds)
            expected = hash.hex
            let (wasmSeconds, wasmHash) = try runNode(workload: file.path)
            guard wasmHash == expected else {
                throw ValidationError("the module reached state \(wasmHash), native Swift \(expected)")
            }
            wasm.append(wasmSeconds)
            print("run \(run)/\(runs) done")
        }
        let count = Double(workload.ops.count)
        print("merge in WebAssembly, \(workload.ops.count) property sets on \(entities) entities, median of \(runs):")
        print(String(format: "  native Swift            %6.2f M sets/s", count / median(native) / 1e6))
        print(String(format: "  wasm (Node), per message %6.2f M sets/s", count / median(wasm) / 1e6))
        print(String(format: "ratio wasm / native: %.2fx (both reached state %@)", median(native) / median(wasm), expected))
    }

    /// The base document as one `ops` message, then the workload's
    /// messages, each after its length.
    static func workloadFile(_ workload: MergeWorkload) -> [UInt8] {
        let base = Message.ops(
            workload.base.snapshotOps.enumerated().map { PositionedOp(position: UInt64($0.offset + 1), op: $0.element) })
        var bytes: [UInt8] = []
        for message in [base.binaryEncoded()] + workload.messages {
            let length = UInt32(message.count)
            for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: length >> UInt32(shift))) }
            bytes += message
        }
        return bytes
    }

    private func runNode(workload: String) throws -> (seconds: Double, hash: String) {
        let result = try runPeer(["node", script, workload, module], name: "the wasm side")
        guard let seconds = result["seconds"] as? Double, let hash = result["hash"] as? String else {
            throw ValidationError("the wasm side gave no seconds and hash: \(result)")
        }
        return (seconds, hash)
    }
}
