import ArgumentParser
import Foundation

/// Every workload beside its peer, in one run, as one table: printed, and
/// written as JSON beside a PNG of the latency distributions. It builds
/// nothing: the release build of this command and the module
/// (`Web/build.sh`) come first. The Python peers go into a virtual
/// environment outside git, made the first time.
struct BenchAll: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all",
        abstract: "Run every benchmark beside its peer; one table, as text, JSON and a latency plot.",
        discussion: """
            Workloads: W1 merge (Loro, Yrs), the receive path, the module under Node and in Chromium (native \
            Swift), S2 durable appends (the sqlite3 shell) and loads, S1 fan-out (a bare libwebsockets relay; \
            pycrdt-websocket) and push latency, S3 idle memory (the relay), text (Loro, Yrs; when the automerge-paper \
            trace is at --trace), ink (perfect-freehand, when --freehand gives its sources), blobs (nginx, when \
            installed). A workload that fails is a row saying why, and the \
            command then exits with an error after writing what it has. --quick runs every workload small, \
            to check that each runs and converges, not to time it (CI runs it, in a debug build).
            """)

    @Flag(help: "Small workloads, one run each where that is enough: a check, not a measurement.") var quick = false
    @Option(help: "Where bench.json, latency.svg and latency.png go.") var output = ".build/bench"
    @Option(help: "The Python virtual environment for the peers (made if missing).") var peers = ".build/peers"
    @Option(help: "The WebAssembly module (Web/build.sh makes it).") var module = ".build-wasm/easel.wasm"
    @Option(help: "The automerge-paper editing trace (Benchmarks/README.md says where to get it).")
    var trace = "Benchmarks/traces/automerge-paper.json.gz"
    @Option(help: "perfect-freehand's packages/perfect-freehand/src, to time ink against (Benchmarks/README.md).")
    var freehand: String?

    func run() throws {
        let started = Date()
        let environment = PythonPeers(folder: URL(fileURLWithPath: peers))
        let missing = environment.prepare()
        var rows: [BenchRow] = []
        var failed: [String] = []
        var latency: BenchServe.Measured?

        func section(_ name: String, _ measure: () throws -> [BenchRow]) {
            report("== \(name)")
            do {
                rows += try measure()
            } catch {
                failed.append(name)
                rows.append(.missing(name, "", note: "failed: \(error)"))
            }
        }

        let mergeSize = quick ? ["--sets", "100000", "--runs", "3"] : []
        section("W1 merge") {
            let loro = missing.contains("loro") ? ["--peer", "none"] : []
            let yrs = missing.contains("pycrdt") ? [] : ["--yrs", "Benchmarks/peers/yrs_merge.py"]
            var rows = try BenchMerge.parse(mergeSize + loro + yrs + ["--python", environment.python]).measure().rows
            let absent = ["loro", "pycrdt"].filter(missing.contains)
            if !absent.isEmpty { rows[0].note = "not installed (pip failed): \(absent.joined(separator: ", "))" }
            return rows
        }
        section("receive path") { try BenchReceive.parse(mergeSize).measure() }
        if FileManager.default.fileExists(atPath: module) {
            let chromium = findExecutable("chromium") != nil ? ["--chromium"] : []
            section("module merge") { try BenchWasm.parse(mergeSize + ["--module", module] + chromium).measure() }
        } else {
            rows.append(.missing("module merge", "", note: "no module at \(module): run Web/build.sh first"))
        }
        section("S2 durable appends") {
            try BenchStore.parse(quick ? ["--runs", "1", "--batches", "1,1000", "--load-ops", "100000"] : []).measure()
        }
        section("S1 fan-out and latency") {
            let oneSet = ["--ops-per-push", "1"]
            let small = [
                "--runs", "1", "--seconds", "1", "--readers", "10", "--writers", "20", "--latency-seconds", "3",
                "--idle", "100",
            ]
            let pycrdt =
                missing.contains("pycrdt-websocket") || missing.contains("websockets")
                ? [] : ["--pycrdt", environment.python]
            var measured = try BenchServe.parse(oneSet + pycrdt + (quick ? small : [])).measure()
            if pycrdt.isEmpty {
                measured.rows.append(
                    .missing("S1 fan-out", "pycrdt-websocket", note: "not installed (pip failed): pycrdt-websocket"))
            }
            latency = measured
            // Pushes of ten sets too; its latency and memory rows repeat the first's.
            let tenSets = try BenchServe.parse(
                ["--ops-per-push", "10", "--latency-seconds", "2", "--idle", "10"]
                    + (quick ? ["--runs", "1", "--seconds", "1", "--readers", "10", "--writers", "20"] : [])
            ).measure()
            var rows = measured.rows
            let after = (rows.lastIndex { $0.workload == "S1 fan-out" } ?? -1) + 1
            rows.insert(contentsOf: tenSets.rows.filter { $0.workload == "S1 fan-out" }, at: after)
            return rows
        }
        if FileManager.default.fileExists(atPath: trace) {
            section("text") {
                let peers = ["loro", "yrs"].filter { !missing.contains($0 == "yrs" ? "pycrdt" : $0) }
                let hasModule = FileManager.default.fileExists(atPath: module)
                return try BenchText.parse(
                    [
                        "--trace", trace, "--python", environment.python, "--peers",
                        peers.isEmpty ? "none" : peers.joined(separator: ","),
                    ]
                        + ["--module", hasModule ? module : "none"] + (quick ? ["--runs", "1", "--merges", "1"] : [])
                ).measure()
            }
        } else {
            rows.append(
                .missing(
                    "text (automerge-paper)", "",
                    note: "no trace at \(trace): Benchmarks/README.md says where to get it"))
        }
        if let freehand, FileManager.default.fileExists(atPath: module) {
            section(InkAgainstFreehand.workload) {
                try InkAgainstFreehand.rows(source: freehand, module: module, python: "python3", runs: quick ? 1 : 3)
            }
        } else {
            let why = freehand == nil ? "no --freehand sources given" : "no module at \(module): run Web/build.sh first"
            rows.append(.missing(InkAgainstFreehand.workload, "", note: "\(why) (Benchmarks/README.md)"))
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") {
            section("blobs") {
                try BenchBlobs.parse(
                    quick
                        ? [
                            "--runs", "1", "--count", "4", "--size", "\(1 << 20)", "--writers", "10",
                            "--latency-seconds", "2",
                        ]
                        : ["--latency-seconds", "5"]
                ).measure()
            }
        } else {
            rows.append(.missing("blobs", "", note: "no nginx at /usr/sbin/nginx (Debian: nginx-light)"))
        }

        let seconds = Date().timeIntervalSince(started)
        print("")
        print("easel bench all\(quick ? " --quick" : ""): \(rows.count) rows in \(Int(seconds)) s")
        print(BenchTable.text(rows))
        try write(rows, latency: latency, seconds: seconds)
        if !failed.isEmpty { throw CommandError("failed: \(failed.joined(separator: ", "))") }
    }

    private func write(_ rows: [BenchRow], latency: BenchServe.Measured?, seconds: Double) throws {
        let folder = URL(fileURLWithPath: output)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        struct Report: Encodable {
            var date: String
            var quick: Bool
            var cores: Int
            var seconds: Double
            var rows: [BenchRow]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let report = Report(
            date: ISO8601DateFormatter().string(from: Date()), quick: quick,
            cores: ProcessInfo.processInfo.activeProcessorCount, seconds: seconds, rows: rows)
        try encoder.encode(report).write(to: folder.appendingPathComponent("bench.json"))
        print("wrote \(folder.appendingPathComponent("bench.json").path)")
        guard let latency, !latency.receiptMilliseconds.isEmpty else { return }
        let svg = LatencyPlot.svg(
            [("push to receipt", latency.receiptMilliseconds), ("push to ack", latency.ackMilliseconds)],
            title: "easel serve: push latency, one set a push (all runs)")
        let svgFile = folder.appendingPathComponent("latency.svg")
        try Data(svg.utf8).write(to: svgFile)
        guard let converter = findExecutable("rsvg-convert") else {
            print("wrote \(svgFile.path) (no PNG: rsvg-convert is not installed; Debian: librsvg2-bin)")
            return
        }
        let process = Process()
        process.executableURL = converter
        process.arguments = ["--format", "png", "-o", folder.appendingPathComponent("latency.png").path, svgFile.path]
        try process.run()
        process.waitUntilExit()
        print("wrote \(svgFile.path) and latency.png")
    }
}
