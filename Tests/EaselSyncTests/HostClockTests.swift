import EaselSync
import Foundation
import Testing

/// The one clock hosts stamp the server's events with.
@Suite("Host clock")
struct HostClockTests {
    @Test("it reads the wall clock at its start and then never runs backwards")
    func startsAtTheWallClockAndNeverRunsBackwards() {
        let clock = HostClock()
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        let first = clock.now
        #expect(abs(first.rawValue - wall) < 1_000)
        let readings = (0..<10_000).map { _ in clock.now }
        #expect(zip(readings, readings.dropFirst()).allSatisfy { $0 <= $1 })
        Thread.sleep(forTimeInterval: 0.05)
        #expect(clock.now.milliseconds(since: first) >= 50)
    }
}
