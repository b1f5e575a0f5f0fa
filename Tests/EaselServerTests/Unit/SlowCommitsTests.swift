import EaselLocking
import Logging
import Testing

@testable import EaselServer

/// A storage stall makes every append queued behind it slow: the log gets
/// one line a second about them, not one each.
@Suite struct SlowCommitsTests {
    func lines(_ notes: (SlowCommits, Logger) -> Void) -> [String] {
        let written = Locked<[String]>([])
        let sink = LogSink { line in written.withLock { $0.append(line) } }
        let logger = Logger(label: "test") { _ in LineLogHandler(format: .text, level: .info, sink: sink) }
        notes(SlowCommits(threshold: .milliseconds(250)), logger)
        return written.withLock { $0 }
    }

    @Test func aStallsThousandSlowAppendsMakeOneLineASecondCountingThemAndTheSlowest() {
        let start = ContinuousClock.now
        let written = lines { slow, logger in
            for index in 0..<3000 {
                // 3000 appends over 2.5 s, the slowest 900 ms.
                let took = Duration.milliseconds(index == 1500 ? 900 : 300)
                slow.note(took, ops: 2, at: start + .microseconds(index * 833), logger: logger)
            }
        }
        #expect(written.count == 3, "\(written)")
        #expect(written[0].contains("appends=1 ") && written[0].contains("ms=300"), "\(written[0])")
        // The appends after the first line, up to a second after it.
        #expect(written[1].contains("appends=1201 ") && written[1].contains("ops=2402"), "\(written[1])")
        #expect(written[1].contains("ms=300"), "\(written[1])")
        // The next second holds the 900 ms one.
        #expect(written[2].contains("appends=1201 ") && written[2].contains("ms=900"), "\(written[2])")
    }

    @Test func anAppendUnderTheThresholdIsNotLoggedNorCounted() {
        let start = ContinuousClock.now
        let written = lines { slow, logger in
            slow.note(.milliseconds(249), ops: 1, at: start, logger: logger)
            slow.note(.milliseconds(251), ops: 1, at: start + .seconds(1), logger: logger)
        }
        #expect(written.count == 1 && written[0].contains("appends=1 ") && written[0].contains("ms=251"), "\(written)")
    }
}
