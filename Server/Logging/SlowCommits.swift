import EaselLocking
import Logging

/// Commits slower than a threshold, logged at most once a second: when
/// storage stalls, every append queued behind the stall is slow, and one
/// line each buried the log (thousands of identical lines for one 254 ms
/// stall under load). A line says how many appends were slow since the
/// last one, and the slowest.
final class SlowCommits: Sendable {
    private struct State {
        var lastLine: ContinuousClock.Instant?
        var appends = 0
        var ops = 0
        var slowest: Duration = .zero
    }

    let threshold: Duration
    private let interval: Duration
    private let state = Locked(State())

    init(threshold: Duration, interval: Duration = .seconds(1)) {
        self.threshold = threshold
        self.interval = interval
    }

    /// Notes an append that took `took` from its handoff to its commit.
    func note(_ took: Duration, ops: Int, at now: ContinuousClock.Instant, logger: Logger) {
        guard took > threshold else { return }
        let line: State? = state.withLock { state in
            state.appends += 1
            state.ops += ops
            state.slowest = max(state.slowest, took)
            if let last = state.lastLine, now - last < interval { return nil }
            defer { state = State(lastLine: now) }
            return state
        }
        guard let line else { return }
        logger.warning(
            "slow commit",
            metadata: [
                "ms": "\(line.slowest.wholeMilliseconds)", "appends": "\(line.appends)", "ops": "\(line.ops)",
            ])
    }
}
