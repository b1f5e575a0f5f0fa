import EaselBot
import Foundation

/// How a fault run ended: what was thrown, the promises checked, what was
/// lost (nothing, or it failed), and whether every document's bots
/// converged.
struct ChaosVerdict {
    /// What was thrown, for the first line: "100 kills", say.
    var fault: String
    var shape: ChaosCrowd.Shape
    var outcomes: [Int: Result<FleetOutcome, FleetError>]
    var audit: Witness.Audit
    /// The fault's own figures, printed and in the JSON report.
    var figures: [(name: String, value: Double)] = []
    /// The fault's own failures (connections the server never freed, say).
    var problems: [String] = []

    /// Documents whose fleet did not end converged, with why.
    var unsettled: [String] {
        (0..<shape.documents).compactMap { index in
            switch outcomes[index] {
            case .success(let outcome)
            where outcome.verdict == .converged && outcome.images.uploadFailures.isEmpty
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

    var passed: Bool { audit.lost == 0 && unsettled.isEmpty && problems.isEmpty }

    private var fleets: [FleetOutcome] { outcomes.values.compactMap { try? $0.get() } }
    private var reconnections: Int { fleets.reduce(0) { $0 + $1.reconnects } }
    private var uploads: Int { fleets.reduce(0) { $0 + $1.images.uploaded } }
    /// Why the bots' first edits the server refused were refused.
    private var refusals: [String] {
        Array(
            fleets.lazy.flatMap { fleet in fleet.bots.lazy.flatMap { bot in bot.refusals.map { "\(bot.name): \($0)" } }
            }.prefix(10))
    }

    var summary: String {
        var lines = [
            "\(fault) survived by \(shape.documents * shape.botsPerDocument) bots on \(shape.documents) documents: "
                + "\(audit.ops) acknowledged ops and \(audit.blobs) stored blobs checked in storage; lost: \(audit.lost)",
            figures.map { "\($0.name) \(String(format: "%.2f", $0.value))" }.joined(separator: ", ")
                + "; \(reconnections) reconnections; \(uploads) uploads",
            unsettled.isEmpty
                ? "every document's bots converged with what a fresh client reads"
                : "not converged: " + unsettled.prefix(10).joined(separator: "; "),
        ]
        lines += problems
        lines += refusals.map { "refused: \($0)" }
        lines += audit.missingOps.prefix(10).map { "lost op: \($0)" }
        lines += audit.missingBlobs.prefix(10).map { "lost blob: \($0)" }
        lines += audit.duplicatedOps.prefix(10).map { "stored twice: \($0)" }
        return lines.joined(separator: "\n")
    }

    func json() throws -> Data {
        var report: [String: Any] = [
            "passed": passed, "fault": fault, "documents": shape.documents,
            "bots": shape.documents * shape.botsPerDocument, "seed": shape.seed,
            "acknowledgedOpsChecked": audit.ops, "storedBlobsChecked": audit.blobs, "lost": audit.lost,
            "reconnections": reconnections, "uploads": uploads, "unsettled": unsettled, "problems": problems,
            "refusals": refusals,
        ]
        for (name, value) in figures { report[name] = value }
        return try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
    }
}
