import EaselBot
import EaselBotScript
import Foundation

/// A live line on a terminal, rewritten in place every second; nothing at
/// all when standard error is not a terminal (piped, or in CI).
final class ProgressLine: Sendable {
    private let enabled = isatty(STDERR_FILENO) == 1

    func show(_ progress: FleetProgress) {
        guard enabled else { return }
        var line = String(
            format: "%6.1f s  %@  %d/%d bots online  ops %d sent, %d acked  %.0f acked/s",
            progress.elapsed.milliseconds / 1000, progress.phase, progress.online, progress.bots,
            progress.opsMade, progress.opsAcknowledged, progress.acknowledgedPerSecond)
        if let p50 = progress.ackP50, let p99 = progress.ackP99 {
            line += String(format: "  ack p50 %.1f ms, p99 %.1f ms", p50.milliseconds, p99.milliseconds)
        }
        if progress.behind > .milliseconds(50) {
            line += String(format: "  behind %.0f ms", progress.behind.milliseconds)
        }
        // Back to the line's start and clear it, so a shorter line leaves no tail.
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
