import EaselBot
import EaselBotScript
import EaselModel
import Foundation

/// The end of a bot run, for people (text) and for tools (JSON).
struct BotSummary {
    let outcome: FleetOutcome
    let cpuSeconds: Double

    private var seconds: Double { outcome.elapsed.milliseconds / 1000 }

    private func latency(_ percentile: Double) -> Double {
        Double(outcome.ackLatency.valueAtPercentile(percentile)) / 1000
    }

    var text: String {
        var lines: [String] = []
        func line(_ label: String, _ value: String) {
            lines.append("  " + label.padding(toLength: 10, withPad: " ", startingAt: 0) + value)
        }
        let failed = outcome.failures.count
        let stopped = outcome.bots.filter(\.stopped).count
        let finished = outcome.bots.count - failed - stopped
        var states: [String] = []
        if finished > 0 { states.append("\(finished) finished") }
        if stopped > 0 { states.append("\(stopped) stopped at the end of the duration") }
        if failed > 0 { states.append("\(failed) failed") }
        line("bots", states.joined(separator: ", "))
        line(
            "ops",
            "\(outcome.opsMade) made, \(outcome.opsAcknowledged) acknowledged, \(outcome.opsRefused) refused by the server"
        )
        line(
            "rate",
            String(
                format: "%.0f acknowledged ops/s over %.1f s", Double(outcome.opsAcknowledged) / max(seconds, 0.001),
                seconds))
        if outcome.ackLatency.totalCount > 0 {
            line(
                "ack",
                String(
                    format: "p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms", latency(50), latency(90), latency(99),
                    Double(outcome.ackLatency.max) / 1000))
        }
        let offline = outcome.bots.reduce(0) { $0 + $1.offlinePeriods }
        line(
            "offline",
            "\(offline) \(offline == 1 ? "period" : "periods"); \(outcome.reconnects) "
                + (outcome.reconnects == 1 ? "reconnection" : "reconnections"))
        line(
            "bot CPU", String(format: "%.1f s (%.0f%% of one core)", cpuSeconds, 100 * cpuSeconds / max(seconds, 0.001))
        )
        if let hash = outcome.serverHash, let entities = outcome.serverEntities {
            line("server", "\(entities) entities, state \(hash.hex) \(hash.emojiKey)")
        }
        let images = outcome.images
        if images.uploadsStarted > 0 || images.verified > 0 || !images.unverified.isEmpty {
            line(
                "images",
                "\(images.uploaded) of \(images.uploadsStarted) uploaded; \(images.verified) seen, downloaded and checked"
                    + " against their hashes")
        }
        for failure in images.uploadFailures { line("failed", "upload \(failure)") }
        for failure in images.unverified { line("failed", "image \(failure)") }
        for (bot, failure) in outcome.failures { line("failed", "\(bot): \(failure)") }
        if outcome.charactersChecked > 0 || !outcome.misplacedCharacters.isEmpty {
            line(
                "text",
                outcome.misplacedCharacters.isEmpty
                    ? "\(outcome.charactersChecked) characters typed in acknowledged ops, each where the CRDT puts it"
                    : "MISPLACED characters, of \(outcome.charactersChecked) typed in acknowledged ops:")
        }
        for problem in outcome.misplacedCharacters { line("failed", problem) }
        if outcome.opsRefused > 0 {
            line("refused", "the server refused \(outcome.opsRefused) ops (a view-only token, a limit): they are lost")
        }
        switch outcome.verdict {
        case .converged:
            line("verdict", "converged: every bot reads what a fresh client reads from the server")
        case .diverged(let bots):
            let shown = bots.prefix(5).joined(separator: ", ") + (bots.count > 5 ? " and \(bots.count - 5) more" : "")
            line("verdict", "DIVERGED: \(shown) read another state than the server")
            for bot in outcome.bots where bots.prefix(5).contains(bot.name) {
                line("", "\(bot.name) reads \(bot.stateHash)")
            }
        case .unsettled(let reason):
            line("verdict", "NOT SETTLED: \(reason)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Everything in the text, and each bot's ops and state.
    func json(document: String, url: String, mode: String) throws -> Data {
        let verdict: String
        var detail: String?
        switch outcome.verdict {
        case .converged: verdict = "converged"
        case .diverged(let bots):
            verdict = "diverged"
            detail = bots.joined(separator: " ")
        case .unsettled(let reason):
            verdict = "unsettled"
            detail = reason
        }
        let report = Report(
            document: document, url: url, mode: mode, passed: outcome.passed, verdict: verdict, verdictDetail: detail,
            serverStateHash: outcome.serverHash?.hex, serverEmojiKey: outcome.serverHash?.emojiKey,
            serverEntities: outcome.serverEntities, seconds: seconds, opsMade: outcome.opsMade,
            opsAcknowledged: outcome.opsAcknowledged, opsRefused: outcome.opsRefused,
            ackMilliseconds: outcome.ackLatency.totalCount > 0
                ? .init(
                    p50: latency(50), p90: latency(90), p99: latency(99), max: Double(outcome.ackLatency.max) / 1000)
                : nil,
            reconnects: outcome.reconnects, cpuSeconds: cpuSeconds, images: outcome.images,
            charactersChecked: outcome.charactersChecked, misplacedCharacters: outcome.misplacedCharacters,
            bots: outcome.bots)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(report)
    }

    private struct Report: Encodable {
        struct Latency: Encodable {
            var p50, p90, p99, max: Double
        }

        var document, url, mode: String
        var passed: Bool
        var verdict: String
        var verdictDetail: String?
        var serverStateHash, serverEmojiKey: String?
        var serverEntities: Int?
        var seconds: Double
        var opsMade, opsAcknowledged, opsRefused: Int
        var ackMilliseconds: Latency?
        var reconnects: Int
        var cpuSeconds: Double
        var images: FleetOutcome.Images
        var charactersChecked: Int
        var misplacedCharacters: [String]
        var bots: [FleetOutcome.Bot]
    }
}
