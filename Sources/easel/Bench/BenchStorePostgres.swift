import ArgumentParser
import EaselLocking
import EaselModel
import EaselPostgres
import EaselProtocol
import EaselStore
import Foundation

/// `easel bench store --postgres`: the same durable appends into a private
/// PostgreSQL (Debian's server, fsync and synchronous commit on, as it
/// ships), beside the SQLite store and raw inserts through psql, in the
/// same run; and acknowledgement latency at a steady rate of one-op
/// appends over many documents, each store with its group commit.
extension BenchStore {
    func runPostgres(sizes: [Int]) throws {
        let postgres = try LocalPostgres()
        defer { postgres.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easel-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        print("durable appends into PostgreSQL, ops/s, median of \(runs) (each batch acknowledged before the next)")
        print("batch   Easel/PostgreSQL   psql inserts   ratio   Easel/SQLite   PostgreSQL ÷ SQLite")
        for batch in sizes {
            let total = batch == 1 ? 2_000 : batch < 100 ? 20_000 : 100_000
            var (onPostgres, raw, onSQLite): ([Double], [Double], [Double]) = ([], [], [])
            for run in 0..<runs {
                let name = "bench-\(batch)-\(run)"
                onPostgres.append(
                    try Self.postgresAppends(url: postgres.url, document: name, batch: batch, total: total))
                raw.append(
                    try Self.psqlInserts(url: postgres.url, table: "raw_\(batch)_\(run)", batch: batch, total: total))
                let path = folder.appendingPathComponent("\(name).db").path
                onSQLite.append(try Self.easelAppends(path: path, durability: .full, batch: batch, total: total))
            }
            let (p, r, s) = (median(onPostgres), median(raw), median(onSQLite))
            print(String(format: "%5d   %16.0f   %12.0f   %.2fx   %12.0f   %.2fx", batch, p, r, p / r, s, p / s))
        }

        print(
            "\nacknowledgement latency, one-op appends at \(latencyRate) ops/s over \(latencyDocuments) documents "
                + "for \(latencySeconds) s (from each append's due time), median of \(runs) runs")
        print("store        p50 ms   p99 ms   max ms   ops/s done")
        for store in ["SQLite", "PostgreSQL"] {
            var runsSeen: [LatencyRun] = []
            for run in 0..<runs {
                let appender: any SteadyAppender =
                    store == "SQLite"
                    ? try SQLiteAppender(
                        path: folder.appendingPathComponent("steady-\(run).db").path, documents: latencyDocuments)
                    : try PostgresAppender(url: postgres.url, prefix: "steady-\(run)", documents: latencyDocuments)
                runsSeen.append(try Self.steady(appender, rate: latencyRate, seconds: latencySeconds))
                appender.stop()
            }
            print(
                String(
                    format: "%-10@ %8.2f %8.2f %8.2f %12.0f", store as NSString, median(runsSeen.map(\.p50)),
                    median(runsSeen.map(\.p99)), median(runsSeen.map(\.max)), median(runsSeen.map(\.throughput))))
        }
    }

    /// Ops a second through the PostgreSQL worker under a lease, each batch
    /// acknowledged before the next is sent.
    static func postgresAppends(url: String, document name: String, batch: Int, total: Int) throws -> Double {
        let appender = try PostgresAppender(url: url, prefix: name, documents: 1)
        defer { appender.stop() }
        let ops = Self.ops(count: total)
        let acknowledged = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        for first in stride(from: 0, to: total, by: batch) {
            appender.append(Array(ops[first..<min(first + batch, total)]), to: 0) { acknowledged.signal() }
            acknowledged.wait()
        }
        return Double(total) / (ContinuousClock.now - start).seconds
    }

    /// Rows a second through psql: the same columns and keys as Easel's
    /// `ops` table, one transaction and one INSERT per batch, payloads of
    /// the same size.
    static func psqlInserts(url: String, table: String, batch: Int, total: Int) throws -> Double {
        let payload = OpBatchCoding.encode([Self.ops(count: 2)[1].op]).map { String(format: "%02x", $0) }.joined()
        var script = """
            CREATE TABLE \(table) (document bigint NOT NULL, position bigint NOT NULL, replica bigint NOT NULL,
                counter bigint NOT NULL, author text NOT NULL, received_at bigint NOT NULL, format smallint NOT NULL,
                payload bytea NOT NULL, PRIMARY KEY (document, position));
            CREATE UNIQUE INDEX \(table)_by_id ON \(table) (document, replica, counter);

            """
        // A batch is one multi-row INSERT: one statement, as Easel's append is.
        for first in stride(from: 0, to: total, by: batch) {
            let rows = (first..<min(first + batch, total)).map { position in
                "(1, \(position + 1), 42, \(position + 1), 'bench', 0, 1, '\\x\(payload)')"
            }
            script += "BEGIN;\nINSERT INTO \(table) VALUES \(rows.joined(separator: ",\n"));\nCOMMIT;\n"
        }
        let scriptPath = NSTemporaryDirectory() + "easel-bench-\(table).sql"
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: scriptPath) }
        let seconds = try timed(
            ["psql", "-q", "-X", "-v", "ON_ERROR_STOP=1", url, "-f", scriptPath],
            failure: "psql failed; is it installed (Debian's postgresql-client)?")
        return Double(total) / seconds
    }

    struct LatencyRun {
        var p50, p99, max, throughput: Double
    }

    /// One-op appends due every 1/rate s, round the documents, sent without
    /// waiting for earlier ones (as rooms do); each latency is counted from
    /// its due time, so a stall is not hidden by sending late.
    static func steady(_ appender: any SteadyAppender, rate: Int, seconds: Double) throws -> LatencyRun {
        let total = Int(Double(rate) * seconds)
        let ops = Self.ops(count: total / appender.documents + 2)
        let latencies = Locked([Double](repeating: 0, count: total))
        let done = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        let interval = Duration.seconds(1) / rate
        for index in 0..<total {
            let due = start + interval * index
            let now = ContinuousClock.now
            if due > now { Thread.sleep(forTimeInterval: (due - now).seconds) }
            let document = index % appender.documents
            let op = ops[index / appender.documents]
            appender.append([op], to: document) {
                let milliseconds = (ContinuousClock.now - due).seconds * 1000
                latencies.withLock { $0[index] = milliseconds }
                done.signal()
            }
        }
        for _ in 0..<total { done.wait() }
        let elapsed = (ContinuousClock.now - start).seconds
        let sorted = latencies.value.sorted()
        return LatencyRun(
            p50: sorted[sorted.count / 2], p99: sorted[min(sorted.count - 1, sorted.count * 99 / 100)],
            max: sorted.last ?? 0, throughput: Double(total) / elapsed)
    }
}

/// Appends to a set of documents numbered from 0, positions kept per
/// document; completions run on the store's commit thread.
protocol SteadyAppender {
    var documents: Int { get }
    func append(_ ops: [StoredOp], to document: Int, then: @escaping @Sendable () -> Void)
    func stop()
}

/// Easel's SQLite store (full durability), as a single server runs it.
final class SQLiteAppender: SteadyAppender {
    let documents: Int
    private let worker: StorageWorker
    private var heads: [UInt64]

    init(path: String, documents: Int) throws {
        self.documents = documents
        worker = try StorageWorker(path: path, durability: .full, snapshotEvery: .max)
        heads = Array(repeating: 0, count: documents)
        let ready = DispatchSemaphore(value: 0)
        worker.perform({ (store: OpStore) throws(StoreError) in
            for index in 0..<documents { try store.createDocument("doc-\(index)", epoch: Epoch(rawValue: 1), at: 0) }
        }) { _ in ready.signal() }
        ready.wait()
    }

    func append(_ ops: [StoredOp], to document: Int, then: @escaping @Sendable () -> Void) {
        let positioned = ops.positioned(after: &heads[document])
        worker.append(positioned, to: "doc-\(document)") { result in
            precondition((try? result.get()) != nil, "an append failed")
            then()
        }
    }

    func stop() { worker.shutdown() }
}

/// Easel's PostgreSQL store, as a node runs it: fenced appends under a
/// lease this process took, through the worker's group commit.
final class PostgresAppender: SteadyAppender {
    let documents: Int
    private let worker: PostgresWorker
    private let rows: [PostgresDocument]
    private let leases: [Lease]
    private var heads: [UInt64]
    /// The node's session: its leases live while it is open.
    private let nodeSession: PostgresStore

    init(url: String, prefix: String, documents: Int) throws {
        self.documents = documents
        worker = try PostgresWorker(url: url, snapshotEvery: .max)
        let store = try PostgresStore(url: url, migrating: false)
        let node = try store.registerNode(
            name: "bench-\(prefix)", address: "127.0.0.1:0", timing: LeaseTiming(ttl: .seconds(600)))
        var rows: [PostgresDocument] = []
        var leases: [Lease] = []
        for index in 0..<documents {
            let row = try store.createDocument("\(prefix)-\(index)", epoch: Epoch(rawValue: 1), at: 0)
            guard case .granted(let lease) = try store.takeLease(of: row, for: node) else {
                throw ValidationError("the benchmark's lease of \(row.name) was not granted")
            }
            rows.append(row)
            leases.append(lease)
        }
        self.rows = rows
        self.leases = leases
        heads = Array(repeating: 0, count: documents)
        nodeSession = store
    }

    func append(_ ops: [StoredOp], to document: Int, then: @escaping @Sendable () -> Void) {
        let positioned = ops.positioned(after: &heads[document])
        worker.append(FencedAppend(document: rows[document], ops: positioned, lease: leases[document])) { outcome in
            precondition(outcome == .committed, "an append failed: \(outcome)")
            then()
        }
    }

    func stop() { worker.shutdown() }
}

extension [StoredOp] {
    /// The ops at the positions after `head`, which moves on past them.
    fileprivate func positioned(after head: inout UInt64) -> [StoredOp] {
        let first = head + 1
        head += UInt64(count)
        return enumerated().map { index, op in
            var op = op
            op.position = first + UInt64(index)
            return op
        }
    }
}
