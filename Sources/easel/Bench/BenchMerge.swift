import ArgumentParser
import EaselModel
import EaselProtocol
import Foundation

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure Easel against its peers (build with -c release).",
        subcommands: [
            BenchMerge.self, BenchText.self, BenchWasm.self, BenchInk.self, BenchReceive.self, BenchStore.self,
            BenchServe.self, BenchRouter.self, BenchRelay.self, BenchBlobs.self, BenchAll.self,
        ]
    )
}

/// Merging remote ops: a receiver decodes `ops` messages and applies them,
/// against Loro importing the same workload's updates in the same run.
struct BenchMerge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge a canvas workload of property sets; compare with Loro in the same run.",
        discussion: """
            Runs Easel and Loro (Benchmarks/peers/loro_merge.py, needs `pip install loro`) \
            alternately, --runs times each, and prints medians and their ratio.
            """
    )

    @Option(help: "Entities on the canvas.") var entities = 1000
    @Option(help: "Property sets to merge.") var sets = 1_000_000
    @Option(help: "Concurrent writers.") var writers = 4
    @Option(help: "Runs of each side; medians are reported.") var runs = 5
    @Option(help: "The Loro script, or 'none' to measure Easel alone.")
    var peer = "Benchmarks/peers/loro_merge.py"
    @Option(help: "The Python that runs it (one with loro installed).") var python = "python3"
    @Option(help: "Yrs's script (Benchmarks/peers/yrs_merge.py, needs pycrdt), or 'none'.") var yrs = "none"

    /// Every run's seconds, each side's.
    struct Measured {
        var sets: Int
        var wireBytes: Int
        var decodeAndApply: [Double] = []
        var applyOnly: [Double] = []
        var decodeOnly: [Double] = []
        var decodeMessages: [Double] = []
        var loro: [Double] = []
        var loroBytes = 0
        var yrs: [Double] = []
        var yrsBytes = 0

        var rows: [BenchRow] {
            let count = Double(sets)
            func rates(_ seconds: [Double]) -> [Double] { seconds.map { count / $0 / 1e6 } }
            var rows: [BenchRow] = []
            for (name, seconds, bytes) in [("Loro", loro, loroBytes), ("Yrs", yrs, yrsBytes)]
            where !seconds.isEmpty || (name == "Loro" && yrs.isEmpty) {
                rows.append(
                    BenchRow(
                        workload: "W1 merge", metric: "decode + apply", unit: "M sets/s", easel: rates(decodeAndApply),
                        peer: seconds.isEmpty ? nil : name, peerValues: rates(seconds), higherIsBetter: true))
                rows.append(
                    BenchRow(
                        workload: "W1 merge", metric: "bytes an op on the wire", unit: "bytes",
                        easel: [Double(wireBytes) / count], peer: seconds.isEmpty ? nil : name,
                        peerValues: seconds.isEmpty ? [] : [Double(bytes) / count], higherIsBetter: false))
            }
            return rows + [
                BenchRow(
                    workload: "W1 merge", metric: "decode only", unit: "M sets/s", easel: rates(decodeOnly),
                    higherIsBetter: true),
                BenchRow(
                    workload: "W1 merge", metric: "apply only", unit: "M sets/s", easel: rates(applyOnly),
                    higherIsBetter: true),
            ]
        }
    }

    func run() throws {
        let measured = try measure()
        let count = Double(measured.sets)
        print("merge, \(measured.sets) property sets on \(entities) entities by \(writers) writers, median of \(runs):")
        print(row("Easel decode + apply", count / median(measured.decodeAndApply), bytes: measured.wireBytes))
        print(row("Easel decode only", count / median(measured.decodeOnly), bytes: nil))
        print(row("Easel decode Message", count / median(measured.decodeMessages), bytes: nil))
        print(row("Easel apply only", count / median(measured.applyOnly), bytes: nil))
        for (name, seconds, bytes) in [
            ("Loro", measured.loro, measured.loroBytes), ("Yrs", measured.yrs, measured.yrsBytes),
        ]
        where !seconds.isEmpty {
            print(row("\(name) import", count / median(seconds), bytes: bytes))
            print(
                String(
                    format: "ratio Easel (decode + apply) / %@: %.1fx", name as NSString,
                    median(seconds) / median(measured.decodeAndApply)))
        }
    }

    /// Runs both sides `runs` times, checking that every merge reached the
    /// state applying each op one by one reaches.
    func measure() throws -> Measured {
        let workload = try MergeWorkload(entities: entities, sets: sets, writers: writers, seed: 1)
        var measured = Measured(sets: workload.ops.count, wireBytes: workload.messages.reduce(0) { $0 + $1.count })
        let expected = workload.stateApplyingEachOp()
        for run in 1...runs {
            let merged = try workload.timeDecodeAndApply()
            guard merged.hash == expected else {
                throw ValidationError("the merged state \(merged.hash) is not the ops' state \(expected)")
            }
            measured.decodeAndApply.append(merged.seconds)
            measured.applyOnly.append(timeApplyOnly(workload))
            measured.decodeOnly.append(try timeDecodeOnly(workload))
            measured.decodeMessages.append(try timeDecodeMessages(workload))
            if peer != "none" {
                let (seconds, bytes) = try runPeer(peer, name: "Loro")
                measured.loro.append(seconds)
                measured.loroBytes = bytes
            }
            if yrs != "none" {
                let (seconds, bytes) = try runPeer(yrs, name: "Yrs")
                measured.yrs.append(seconds)
                measured.yrsBytes = bytes
            }
            print("run \(run)/\(runs) done")
        }
        return measured
    }

    /// Decoding as a merging receiver does (`OpsMessageReader`).
    private func timeDecodeOnly(_ workload: MergeWorkload) throws -> Double {
        var decoded = 0
        var reader = OpsMessageReader()
        let elapsed = try ContinuousClock().measure {
            for bytes in workload.messages {
                guard try reader.read(bytes) else { throw ValidationError("not an ops message") }
                decoded += reader.ops.count
            }
        }
        precondition(decoded == workload.ops.count)
        return elapsed.seconds
    }

    /// Decoding into `Message` values, the general form.
    private func timeDecodeMessages(_ workload: MergeWorkload) throws -> Double {
        var decoded = 0
        let elapsed = try ContinuousClock().measure {
            for bytes in workload.messages {
                guard case .ops(let ops) = try Message(binary: bytes) else {
                    throw ValidationError("not an ops message")
                }
                decoded += ops.count
            }
        }
        precondition(decoded == workload.ops.count)
        return elapsed.seconds
    }

    private func timeApplyOnly(_ workload: MergeWorkload) -> Double {
        var document = workload.base
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for index in workload.ops.indices { document.apply(workload.ops[index]) }
        }
        precondition(document.highestCounter > workload.base.highestCounter)
        return elapsed.seconds
    }

    /// One run of a peer's script on the same workload.
    private func runPeer(_ script: String, name: String) throws -> (seconds: Double, bytes: Int) {
        let result = try easel.runPeer(
            [python, script, "--entities", "\(entities)", "--sets", "\(sets)", "--writers", "\(writers)"], name: name
        )
        guard let seconds = result["seconds"] as? Double, let bytes = result["bytes"] as? Int else {
            throw ValidationError("the \(name) peer gave no seconds and bytes: \(result)")
        }
        return (seconds, bytes)
    }

    private func row(_ name: String, _ perSecond: Double, bytes: Int?) -> String {
        let size = bytes.map { String(format: ", %.2f bytes an op", Double($0) / Double(sets)) } ?? ""
        return String(format: "  %-22@ %6.2f M sets/s%@", name, perSecond / 1e6, size)
    }
}

/// Runs a benchmark's other side as a child process (found on the PATH)
/// and reads the one JSON object it prints.
func runPeer(_ arguments: [String], name: String) throws -> [String: Any] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let result = try? JSONSerialization.jsonObject(with: output) as? [String: Any]
    else { throw ValidationError("\(name) failed: \(String(decoding: output, as: UTF8.self))") }
    return result
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
