import EaselProtocol
import EaselStore
import EaselSync
import Prometheus

/// What `/metrics` reports, in the Prometheus text format. Counters and
/// histograms are updated where things happen (the service thread, storage
/// completions); gauges are read when scraped.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let pushes: Counter
    let opsCommitted: Counter
    let commitLatency: DurationHistogram
    let welcomesEncodedOffThread: Counter
    let welcomesShared: Counter
    let welcomesLate: Counter
    private let connections: Gauge
    private let rooms: Gauge
    private let queuedBytes: Gauge
    private let opsAwaitingStorage: Gauge
    private let opsPerTransaction: Gauge
    private let transactions: Gauge

    private static func name(_ metric: String, unit: String = "", help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "easel", metricName: metric, unitName: unit, helpText: help)
    }

    init() {
        pushes = registry.makeCounter(descriptor: Self.name("pushes", unit: "total", help: "Pushes received."))
        opsCommitted = registry.makeCounter(
            descriptor: Self.name("ops_committed", unit: "total", help: "Ops made durable."))
        commitLatency = registry.makeDurationHistogram(
            descriptor: Self.name(
                "commit_latency", unit: "seconds", help: "From handing ops to storage to their commit."),
            buckets: [
                .microseconds(250), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
                .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
            ])
        welcomesEncodedOffThread = registry.makeCounter(
            descriptor: Self.name(
                "welcomes_encoded_off_thread", unit: "total",
                help: "Big welcomes (snapshots, long tails) encoded on the encoder thread."))
        welcomesShared = registry.makeCounter(
            descriptor: Self.name(
                "welcomes_shared", unit: "total",
                help: "Big welcomes sent from an encoding another joiner already had."))
        welcomesLate = registry.makeCounter(
            descriptor: Self.name(
                "welcomes_late", unit: "total", help: "Joiners closed with 4002 for not taking their welcome in time."))
        connections = registry.makeGauge(descriptor: Self.name("connections", help: "Open WebSocket connections."))
        rooms = registry.makeGauge(descriptor: Self.name("rooms", help: "Documents with a room in memory."))
        queuedBytes = registry.makeGauge(
            descriptor: Self.name(
                "queued_bytes", help: "Bytes waiting to be written to connections (shared welcomes not counted)."))
        opsAwaitingStorage = registry.makeGauge(
            descriptor: Self.name("ops_awaiting_storage", help: "Ops accepted by rooms and not yet committed."))
        opsPerTransaction = registry.makeGauge(
            descriptor: Self.name(
                "ops_per_transaction", help: "Ops per storage transaction, on average (group commit)."))
        transactions = registry.makeGauge(
            descriptor: Self.name("storage_transactions", help: "Storage transactions so far."))
    }

    /// Counts an error message sent, by its code.
    func countError(_ code: ErrorCode) {
        registry.makeCounter(
            descriptor: Self.name("errors", unit: "total", help: "Error messages sent, by code."),
            labels: [("code", String(code.rawValue))]
        ).increment()
    }

    /// The text for a scrape, gauges read now.
    func exposition(connections: Int, rooms: Int, queuedBytes: Int, opsAwaitingStorage: Int, storage: StorageMetrics)
        -> [UInt8]
    {
        self.connections.set(to: Double(connections))
        self.rooms.set(to: Double(rooms))
        self.queuedBytes.set(to: Double(queuedBytes))
        self.opsAwaitingStorage.set(to: Double(opsAwaitingStorage))
        opsPerTransaction.set(to: storage.opsPerTransaction)
        transactions.set(to: Double(storage.transactions))
        return registry.emitToBuffer()
    }
}
