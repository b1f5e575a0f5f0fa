import EaselClient
import Foundation

/// A transport's delegate that counts what it is told, for tests of the
/// transport's own promise (opened once, messages, closed exactly once).
final class TransportEvents: TransportDelegate, @unchecked Sendable {
    struct Counts: Equatable {
        var opened = 0
        var received = 0
        var closed = 0
    }

    private let lock = NSLock()
    private var counts = Counts()

    var snapshot: Counts { lock.withLock { counts } }

    func transportOpened() { lock.withLock { counts.opened += 1 } }
    func transportReceived(_ message: [UInt8]) { lock.withLock { counts.received += 1 } }
    func transportClosed() { lock.withLock { counts.closed += 1 } }

    /// Waits until `condition` holds of the counts, checking every 10 ms.
    func wait(timeout: Duration, until condition: (Counts) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(snapshot) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition(snapshot)
    }
}
