import EaselLocking
import Foundation
import Testing

@Suite("a value behind a lock")
struct LockedTests {
    /// Under ThreadSanitizer (Tests/Sanitizers/sanitize.sh thread) this is
    /// also the check that the lock reports to the sanitizer: without that
    /// every append here is reported as a race.
    @Test func threadsThatAppendUnderTheLockLoseNoAppend() {
        let shared = Locked<[Int]>([])
        let threads = 4
        let appends = 10_000
        let done = DispatchGroup()
        for thread in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                for index in 0..<appends { shared.withLock { $0.append(thread * appends + index) } }
                done.leave()
            }
        }
        done.wait()
        #expect(shared.value.count == threads * appends)
        #expect(Set(shared.value).count == threads * appends)
    }

    @Test func theLocksReportToThreadSanitizerExactlyWhenItRuns() throws {
        let sanitizer = try #require(
            ProcessInfo.processInfo.environment["EASEL_SANITIZER"] ?? (locksReportToThreadSanitizer ? nil : "none"),
            "the locks found ThreadSanitizer in a run that did not say it was under one")
        #expect(locksReportToThreadSanitizer == (sanitizer == "thread"))
    }

    @Test func anErrorThrownInsideTheLockReachesTheCallerAndLeavesTheValueAsChanged() {
        struct Refused: Error {}
        let shared = Locked(0)
        #expect(throws: Refused.self) {
            try shared.withLock { value throws(Refused) in
                value = 1
                throw Refused()
            }
        }
        #expect(shared.value == 1)
        #expect(
            shared.withLock {
                $0 += 1
                return $0
            } == 2)
    }
}
