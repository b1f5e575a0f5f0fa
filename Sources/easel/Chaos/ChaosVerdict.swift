import EaselBot
import Foundation

/// How a fault run ended: the promises checked, what was lost (nothing, or
/// it failed), and whether every document's bots converged.
struct ChaosVerdict {
    var kills: Int
    var documents: Int
    var bots: Int
    var seed: UInt64
    var outcomes: [Int: Result<FleetOutcome, FleetError>]
    var audit: Witness.Audit
    var restartSeconds: [Double]

    /// Documents whose fleet did not end converged, with why.
    var unsettled: [String] {
        (0..<documents).compactMap { index in
            switch outcomes[index] {
            case .success(let outcome) where outcome.verdict == .converged && outcome.images.uploadFailures.isEmpty
                && outcome.images.unverified.isEmpty:
                return nil
            case .success(let outcome):
                return "chaos/doc-\(index): \(outcome.verdict) \(outcome.images.uploadFailures.prefix(2)) "
                    + "\(outcome.images.unverified.prefix(2))"
            case .failure(let error): return "chaos/doc-\(index): \(error)"
            case nil: return "chaos/doc-\(index): no outcome"
            }
        }
    }

    var passed: Bool { audit.lost == 0 && unsettled.isEmpty }

    private var fleets: [FleetOutcome] {
        outcomes.values.compactMap { try? $0.get() }
    }

    var summary: String {
        let reconnects = fleets.reduce(0) { $0 + $1.reconnects }
        let uploaded = fleets.reduce(0) { $0 + $1.images.uploaded }
        var lines = [
            "\(kills) kills survived by \(bots) bots on \(documents) documents: \(audit.ops) acknowledged ops and "
                + "\(audit.blobs) stored blobs checked in the files after every kill; lost: \(audit.lost)",
            "restart to listening: median \(format(median(restartSeconds))) s, longest "
                + "\(format(restartSeconds.max() ?? 0)) s; \(reconnects) reconnections; \(uploaded) uploads",
            unsettled.isEmpty
                ? "every document's bots converged with what a fresh client reads"
                : "not converged: " + unsettled.prefix(10).joined(separator: "; "),
        ]
        lines += audit.missingOps.prefix(10).map { "lost op: \($0)" }
        lines += audit.missingBlobs.prefix(10).map { "lost blob: \($0)" }
        return lines.joined(separator: "\n")
    }

    func json() throws -> Data {
        struct Report: Encodable {
            var passed: Bool
            var kills, documents, bots: Int
            var seed: UInt64
            var acknowledgedOpsChecked, storedBlobsChecked, lost: Int
            var restartMedianSeconds, restartLongestSeconds: Double
            var reconnections, uploads: Int
            var unsettled: [String]
        }
        let report = Report(
            passed: passed, kills: kills, documents: documents, bots: bots, seed: seed,
            acknowledgedOpsChecked: audit.ops, storedBlobsChecked: audit.blobs, lost: audit.lost,
            restartMedianSeconds: median(restartSeconds), restartLongestSeconds: restartSeconds.max() ?? 0,
            reconnections: fleets.reduce(0) { $0 + $1.reconnects },
            uploads: fleets.reduce(0) { $0 + $1.images.uploaded }, unsettled: unsettled)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(report)
    }

    private func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }
}
