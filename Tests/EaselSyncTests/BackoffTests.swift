import EaselSync
import Testing

/// One waiting rule for every client (the Swift clients and the page).
@Suite("Backoff")
struct BackoffTests {
    @Test("a wait doubles after each failure in a row from the first wait up to the longest")
    func waitsDoubleUpToTheLongest() {
        let backoff = Backoff(firstMilliseconds: 100, longestMilliseconds: 1_000)
        let waits = (1...6).map { backoff.waitMilliseconds(afterFailures: $0, jitter: 1) }
        #expect(waits == [100, 200, 400, 800, 1_000, 1_000])
        #expect(backoff.waitMilliseconds(afterFailures: 1_000_000, jitter: 1) == 1_000, "no overflow however long")
    }

    @Test("the random factor keeps each wait between half and all of it, and waits differ")
    func jitterStaysWithinHalfToWhole() {
        let backoff = Backoff.reconnect
        for failures in 1...8 {
            let full = backoff.waitMilliseconds(afterFailures: failures, jitter: 1)
            let waits = (0..<200).map { _ in backoff.waitMilliseconds(afterFailures: failures) }
            #expect(waits.allSatisfy { $0 >= full / 2 && $0 <= full }, "after \(failures)")
            #expect(Set(waits).count > 100, "jittered, so clients cut off together do not come back in step")
        }
        #expect(backoff.waitMilliseconds(afterFailures: 1, jitter: 7) == 100, "a factor past 1 is taken as 1")
        #expect(backoff.waitMilliseconds(afterFailures: 1, jitter: 0) == 50, "a factor under 0.5 is taken as 0.5")
    }

    @Test("a backoff with a number of tries gives no wait once they are spent; reconnecting never stops")
    func triesRunOut() {
        let blobs = Backoff.blobTransfer
        #expect(blobs.attempts == 5)
        #expect((1...4).allSatisfy { blobs.delayMilliseconds(afterFailures: $0) != nil })
        #expect(blobs.delayMilliseconds(afterFailures: 5) == nil, "the fifth failure was the last try")
        #expect(Backoff.reconnect.delayMilliseconds(afterFailures: 10_000) != nil)
    }

    @Test("a policy given in durations is the same policy, and its waits in durations are its waits in milliseconds")
    func durations() {
        let policy = Backoff(first: .milliseconds(250), longest: .seconds(4), attempts: 3)
        #expect(policy == Backoff(firstMilliseconds: 250, longestMilliseconds: 4_000, attempts: 3))
        #expect(policy.first == .milliseconds(250) && policy.longest == .seconds(4))
        #expect(policy.wait(afterFailures: 3, jitter: 1) == .seconds(1))
        #expect(policy.delay(afterFailures: 2, jitter: 0.5) == .milliseconds(250))
        #expect(policy.delay(afterFailures: 3) == nil)
    }
}
