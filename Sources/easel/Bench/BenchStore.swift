import ArgumentParser
import EaselModel
import EaselProtocol
import EaselStore
import Foundation

/// Durable appends through the storage worker against raw inserts through
/// the sqlite3 shell, at the same batch size and synchronous setting, in
/// the same run; and loading a big document with and without a snapshot.
struct BenchStore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Durable ops per second against raw sqlite3 inserts; cold load of a big document.",
        discussion:
            "Needs the sqlite3 shell (Debian package sqlite3); --postgres needs PostgreSQL's server and psql. Files go to a temporary folder."
    )

    @Option(help: "Runs of each measurement; medians are reported.") var runs = 3
    @Option(help: "Ops in the document loaded cold.") var loadOps = 1_000_000
    @Option(help: "Batch sizes to measure, comma-separated.") var batches = "1,10,100,1000"
    @Flag(
        help:
            "Measure Easel's PostgreSQL store instead (a private server, Debian's binaries): appends beside psql inserts and the SQLite store, and acknowledgement latency at a steady rate."
    )
    var postgres = false
    @Option(help: "With --postgres: one-op appends a second for the latency run.") var latencyRate = 5_000
    @Option(help: "With --postgres: documents the latency run's appends go round.") var latencyDocuments = 50
    @Option(help: "With --postgres: seconds of each latency run.") var latencySeconds = 5.0

    func run() throws {
        if postgres {
            try runPostgres(sizes: batches.split(separator: ",").compactMap { Int($0) })
            return
        }
        _ = try measure()
    }

    /// The SQLite measurements, printed as they come; their rows for
    /// `easel bench all`.
    func measure() throws -> [BenchRow] {
        var rows: [BenchRow] = []
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easel-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sizes = batches.split(separator: ",").compactMap { Int($0) }

        print("durable appends, ops/s, median of \(runs) (ratio = Easel / raw sqlite3 shell inserts)")
        print("sync    batch        Easel     sqlite3   ratio")
        for durability in Durability.allCases {
            for batch in sizes {
                let total = batch == 1 ? 2_000 : batch == 10 ? 20_000 : 100_000
                var easel: [Double] = []
                var raw: [Double] = []
                for run in 0..<runs {
                    let path = folder.appendingPathComponent("easel-\(durability)-\(batch)-\(run).db").path
                    easel.append(try Self.easelAppends(path: path, durability: durability, batch: batch, total: total))
                    let rawPath = folder.appendingPathComponent("raw-\(durability)-\(batch)-\(run).db").path
                    raw.append(try Self.rawInserts(path: rawPath, durability: durability, batch: batch, total: total))
                }
                rows.append(
                    BenchRow(
                        workload: "S2 durable appends", metric: "\(durability.rawValue), batch \(batch)",
                        unit: "k ops/s", easel: easel.map { $0 / 1e3 }, peer: "sqlite3 shell",
                        peerValues: raw.map { $0 / 1e3 }, higherIsBetter: true))
                let (e, r) = (median(easel), median(raw))
                print(
                    String(
                        format: "%-7@ %5d  %11.0f %11.0f   %.2fx", durability.rawValue as NSString, batch, e, r, e / r))
            }
        }

        let path = folder.appendingPathComponent("load.db").path
        try Self.buildDocument(path: path, ops: loadOps)
        var withoutSnapshot: [Double] = []
        for _ in 0..<runs { withoutSnapshot.append(try Self.load(path: path)) }
        try OpStore(path: path).snapshot("big", at: 0)
        let stateOps = try OpStore(path: path).latestSnapshot(of: "big")?.state.count ?? 0
        var withSnapshot: [Double] = []
        for _ in 0..<runs { withSnapshot.append(try Self.load(path: path)) }
        print(
            String(
                format:
                    "load of a %d-op document, fresh connection: %.0f ms replaying the log, %.0f ms from a snapshot (%d ops of state)",
                loadOps, median(withoutSnapshot) * 1000, median(withSnapshot) * 1000, stateOps))
        rows.append(
            BenchRow(
                workload: "S2 load", metric: "\(loadOps) ops, from a snapshot", unit: "ms",
                easel: withSnapshot.map { $0 * 1000 }, peer: "replaying the log",
                peerValues: withoutSnapshot.map { $0 * 1000 }, higherIsBetter: false))
        return rows
    }

    /// Ops a second through the storage worker, each batch acknowledged
    /// before the next is sent.
    static func easelAppends(path: String, durability: Durability, batch: Int, total: Int) throws -> Double {
        let worker = try StorageWorker(path: path, durability: durability, snapshotEvery: .max)
        defer { worker.shutdown() }
        let ready = DispatchSemaphore(value: 0)
        worker.perform({ (store: OpStore) throws(StoreError) in
            try store.createDocument("bench", epoch: Epoch(rawValue: 1), at: 0)
        }) { _ in ready.signal() }
        ready.wait()
        let ops = Self.ops(count: total)
        let acknowledged = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        for first in stride(from: 0, to: total, by: batch) {
            worker.append(Array(ops[first..<min(first + batch, total)]), to: "bench") { result in
                precondition((try? result.get()) != nil, "an append failed")
                acknowledged.signal()
            }
            acknowledged.wait()
        }
        return Double(total) / (ContinuousClock.now - start).seconds
    }

    /// Rows a second through the sqlite3 shell: the same table, one
    /// transaction per batch, payloads of the same size.
    static func rawInserts(path: String, durability: Durability, batch: Int, total: Int) throws -> Double {
        let payload = OpBatchCoding.encode([Self.ops(count: 2)[1].op]).map { String(format: "%02x", $0) }.joined()
        var script = """
            PRAGMA journal_mode = WAL; PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL");
            CREATE TABLE ops (document INTEGER NOT NULL, position INTEGER NOT NULL, replica INTEGER NOT NULL,
                counter INTEGER NOT NULL, author TEXT NOT NULL, received_at INTEGER NOT NULL, format INTEGER NOT NULL,
                payload BLOB NOT NULL, PRIMARY KEY (document, position)) WITHOUT ROWID;
            CREATE UNIQUE INDEX ops_by_id ON ops (document, replica, counter);

            """
        for first in stride(from: 0, to: total, by: batch) {
            script += "BEGIN;\n"
            for position in first..<min(first + batch, total) {
                script +=
                    "INSERT INTO ops VALUES (1, \(position + 1), 42, \(position + 1), 'bench', 0, 1, x'\(payload)');\n"
            }
            script += "COMMIT;\n"
        }
        let scriptPath = path + ".sql"
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let seconds = try timed(
            ["sqlite3", path], input: scriptPath, failure: "the sqlite3 shell failed; is it installed?")
        return Double(total) / seconds
    }

    /// Seconds a peer's program (found on the PATH) takes, its standard
    /// input from the file `input` when given; `failure` if it fails.
    static func timed(_ arguments: [String], input: String? = nil, failure: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let input { process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input)) }
        process.standardOutput = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let seconds = (ContinuousClock.now - start).seconds
        guard process.terminationStatus == 0 else { throw ValidationError(failure) }
        return seconds
    }

    static func ops(count: Int) -> [StoredOp] {
        var clock = LamportClock(replica: ReplicaID(rawValue: 42))
        var ops: [StoredOp] = []
        ops.reserveCapacity(count)
        do {
            var transaction = try clock.beginTransaction()
            let entity = try transaction.create(.emoji, [.character("⭐️")])
            for index in 1..<max(count, 1) {
                try transaction.set(.x(Float(index % 1000)), of: entity)
            }
            for (index, op) in clock.commit(transaction).prefix(count).enumerated() {
                ops.append(StoredOp(position: UInt64(index + 1), op: op, author: "bench", receivedAt: 0))
            }
        } catch {
            fatalError("benchmark ops: \(error)")
        }
        return ops
    }

    /// A canvas that grew by a create every 100 ops, the rest moving,
    /// scaling and rotating random entities: its snapshot keeps every
    /// entity and the last write of each register.
    static func canvasOps(count: Int) throws -> [StoredOp] {
        var clock = LamportClock(replica: ReplicaID(rawValue: 42))
        var random = SplitMix64(seed: 7)
        var entities: [EntityID] = []
        var ops: [Op] = []
        ops.reserveCapacity(count)
        while ops.count < count {
            var transaction = try clock.beginTransaction()
            if ops.count % 100 == 0 || entities.isEmpty {
                entities.append(try transaction.create(.emoji, [.character("⭐️"), .x(0), .y(0)]))
            } else {
                let entity = entities[Int(random.next() % UInt64(entities.count))]
                let value = Float(random.next() % 10_000) / 10
                let fields: [Field] = [.x(value), .y(value), .scale(value / 100), .rotation(value / 1000)]
                try transaction.set(fields[Int(random.next() % 4)], of: entity)
            }
            ops += clock.commit(transaction)
        }
        return ops.prefix(count).enumerated().map { index, op in
            StoredOp(position: UInt64(index + 1), op: op, author: "bench", receivedAt: 0)
        }
    }

    static func buildDocument(path: String, ops count: Int) throws {
        let store = try OpStore(path: path, durability: .normal)
        try store.createDocument("big", epoch: Epoch(rawValue: 1), at: 0)
        let ops = try Self.canvasOps(count: count)
        for first in stride(from: 0, to: count, by: 10_000) {
            try store.append(Array(ops[first..<min(first + 10_000, count)]), to: "big")
        }
    }

    /// Seconds to open the database and rebuild the document.
    static func load(path: String) throws -> Double {
        let start = ContinuousClock.now
        let store = try OpStore(path: path)
        let document = try store.load("big").document()
        precondition(document.visibleCount > 0)
        return (ContinuousClock.now - start).seconds
    }
}
