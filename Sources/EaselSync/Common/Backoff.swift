/// How long a client waits before trying again after a failure: the first
/// wait, doubled after each failure in a row up to the longest, times a
/// random factor in 0.5…1 so that many clients cut off together do not
/// come back in step. One rule for every client: the Swift clients and the
/// web page (through the WebAssembly module) read the same constants.
public struct Backoff: Hashable, Sendable {
    public var firstMilliseconds: Int64
    public var longestMilliseconds: Int64
    /// Tries in all, the first included; nil: try for as long as it takes.
    public var attempts: Int?

    public init(firstMilliseconds: Int64, longestMilliseconds: Int64, attempts: Int? = nil) {
        self.firstMilliseconds = max(0, firstMilliseconds)
        self.longestMilliseconds = max(self.firstMilliseconds, longestMilliseconds)
        self.attempts = attempts.map { max(1, $0) }
    }

    /// Reconnecting a document's connection: for as long as it takes, since
    /// edits wait in the outbox meanwhile.
    public static let reconnect = Backoff(firstMilliseconds: 100, longestMilliseconds: 10_000)

    /// Uploading or downloading an image's bytes (Protocol/README.md,
    /// "Blobs over HTTP"): five tries, then the transfer has failed. A busy
    /// server answers 503 with `Retry-After: 1`, so the first wait is about
    /// a second, and the five tries span 7.5 to 15 s: a server that stays
    /// busy for a few seconds still gets the bytes.
    public static let blobTransfer = Backoff(firstMilliseconds: 1_000, longestMilliseconds: 8_000, attempts: 5)

    /// Asking again for the bytes of an image a client shows, whatever the
    /// last answer (a 404 too: an upload may land late), for as long as the
    /// image is shown; its placeholder stays meanwhile.
    public static let blobShown = Backoff(firstMilliseconds: 1_000, longestMilliseconds: 30_000)

    /// The wait after `failures` failures in a row (1 after the first), in
    /// milliseconds, with `jitter` (clamped to 0.5…1) as the random factor;
    /// nil when the tries are spent.
    public func delayMilliseconds(afterFailures failures: Int, jitter: Double = .random(in: 0.5...1)) -> Double? {
        if let attempts, failures >= attempts { return nil }
        return waitMilliseconds(afterFailures: failures, jitter: jitter)
    }

    /// The same wait, however many tries were made.
    public func waitMilliseconds(afterFailures failures: Int, jitter: Double = .random(in: 0.5...1)) -> Double {
        let doublings = min(max(failures - 1, 0), 32)
        let wait = min(Double(longestMilliseconds), Double(firstMilliseconds) * Double(UInt64(1) << UInt64(doublings)))
        return wait * min(max(jitter, 0.5), 1)
    }
}

#if !hasFeature(Embedded)
    extension Backoff {
        /// The same policy given in durations (whole milliseconds count).
        public init(first: Duration, longest: Duration, attempts: Int? = nil) {
            self.init(
                firstMilliseconds: first.wholeMilliseconds, longestMilliseconds: longest.wholeMilliseconds,
                attempts: attempts)
        }

        public var first: Duration { .milliseconds(firstMilliseconds) }
        public var longest: Duration { .milliseconds(longestMilliseconds) }

        /// `delayMilliseconds` as a duration: nil when the tries are spent.
        public func delay(afterFailures failures: Int, jitter: Double = .random(in: 0.5...1)) -> Duration? {
            delayMilliseconds(afterFailures: failures, jitter: jitter).map { .nanoseconds(Int64($0 * 1_000_000)) }
        }

        /// `waitMilliseconds` as a duration.
        public func wait(afterFailures failures: Int, jitter: Double = .random(in: 0.5...1)) -> Duration {
            .nanoseconds(Int64(waitMilliseconds(afterFailures: failures, jitter: jitter) * 1_000_000))
        }
    }
#endif
