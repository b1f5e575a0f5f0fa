import Foundation

/// One line of `easel bench all`'s table: a workload's figure for Easel
/// beside its peer's from the same run, every run's value kept.
struct BenchRow: Sendable {
    var workload: String
    var metric: String
    var unit: String
    /// One value a run, in `unit`.
    var easel: [Double]
    /// Who Easel is measured against; nil when the row stands alone.
    var peer: String?
    var peerValues: [Double] = []
    var higherIsBetter: Bool
    /// Why a row has no figures (a peer missing, a workload failing).
    var note: String?

    /// How many times better Easel does than its peer (above 1: Easel
    /// wins), from the medians; nil without a peer.
    var ratio: Double? {
        guard !peerValues.isEmpty, !easel.isEmpty else { return nil }
        let (mine, theirs) = (median(easel), median(peerValues))
        guard mine > 0, theirs > 0 else { return nil }
        return higherIsBetter ? mine / theirs : theirs / mine
    }

    /// A row for a workload that could not run, and why.
    static func missing(_ workload: String, _ metric: String, note: String) -> BenchRow {
        BenchRow(workload: workload, metric: metric, unit: "", easel: [], higherIsBetter: true, note: note)
    }
}

extension BenchRow: Encodable {
    private enum Keys: String, CodingKey {
        case workload, metric, unit, easel, peer, peerValues, higherIsBetter, note
        case easelMedian, easelMin, easelMax, peerMedian, peerMin, peerMax, ratio
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(workload, forKey: .workload)
        try container.encode(metric, forKey: .metric)
        try container.encode(unit, forKey: .unit)
        try container.encode(higherIsBetter, forKey: .higherIsBetter)
        try container.encode(easel, forKey: .easel)
        if !easel.isEmpty {
            try container.encode(median(easel), forKey: .easelMedian)
            try container.encode(easel.min(), forKey: .easelMin)
            try container.encode(easel.max(), forKey: .easelMax)
        }
        try container.encodeIfPresent(peer, forKey: .peer)
        if !peerValues.isEmpty {
            try container.encode(peerValues, forKey: .peerValues)
            try container.encode(median(peerValues), forKey: .peerMedian)
            try container.encode(peerValues.min(), forKey: .peerMin)
            try container.encode(peerValues.max(), forKey: .peerMax)
        }
        try container.encodeIfPresent(ratio, forKey: .ratio)
        try container.encodeIfPresent(note, forKey: .note)
    }
}

/// The table `easel bench all` prints: medians with their range, and the
/// ratio, a row a figure.
enum BenchTable {
    static func text(_ rows: [BenchRow]) -> String {
        var lines = [
            pad("workload", 22) + pad("figure", 46) + pad("Easel (min-max)", 28) + pad("peer", 18)
                + pad("peer (min-max)", 28) + "ratio"
        ]
        for row in rows {
            guard !row.easel.isEmpty else {
                lines.append(pad(row.workload, 22) + pad(row.metric, 46) + (row.note ?? "no figures"))
                continue
            }
            let peer = row.peerValues.isEmpty ? "" : summary(row.peerValues)
            let ratio = row.ratio.map { String(format: "%.2fx", $0) } ?? ""
            lines.append(
                pad(row.workload, 22) + pad("\(row.metric) (\(row.unit))", 46) + pad(summary(row.easel), 28)
                    + pad(row.peer ?? "", 18) + pad(peer, 28) + ratio)
        }
        return lines.joined(separator: "\n")
    }

    private static func summary(_ values: [Double]) -> String {
        "\(number(median(values))) (\(number(values.min() ?? 0))-\(number(values.max() ?? 0)))"
    }

    private static func number(_ value: Double) -> String {
        switch abs(value) {
        case 100...: String(format: "%.0f", value)
        case 10...: String(format: "%.1f", value)
        default: String(format: "%.2f", value)
        }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
