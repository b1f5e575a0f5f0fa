import EaselHTTP
import EaselLocking
import Foundation
import Logging

/// Logs the front door's refusals, at most `perSecond` lines a second: a
/// flood of bad requests cannot flood the log. What was held back is said
/// in one line when the next second's first refusal comes.
final class HTTPRefusalLog: Sendable {
    private let logger: Logger
    private let perSecond: Int
    private let window = Locked((second: 0, logged: 0, suppressed: 0))

    init(logger: Logger, perSecond: Int = 10) {
        self.logger = logger
        self.perSecond = perSecond
    }

    func note(_ refusal: RequestHead.Refusal, peer: String) {
        let second = Int(Date().timeIntervalSince1970)
        let (log, suppressed) = window.withLock { window -> (Bool, Int) in
            var suppressed = 0
            if window.second != second {
                suppressed = window.suppressed
                window = (second, 0, 0)
            }
            guard window.logged < perSecond else {
                window.suppressed += 1
                return (false, suppressed)
            }
            window.logged += 1
            return (true, suppressed)
        }
        if suppressed > 0 {
            logger.warning("http refusals not logged (too many in a second)", metadata: ["suppressed": "\(suppressed)"])
        }
        if log {
            logger.notice(
                "http refused", metadata: ["status": "\(refusal.status)", "reason": "\(refusal.reason)", "peer": "\(peer)"])
        }
    }
}
