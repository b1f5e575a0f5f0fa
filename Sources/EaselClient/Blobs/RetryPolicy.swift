import EaselSync

/// How a blob transfer tries again after a transient failure: a `Backoff`
/// with a number of tries, `Backoff.blobTransfer` unless a test wants it
/// faster (the web page retries by the same constants, through the module).
public struct RetryPolicy: Hashable, Sendable {
    public var backoff: Backoff

    public init(_ backoff: Backoff = .blobTransfer) {
        self.backoff = Backoff(
            firstMilliseconds: backoff.firstMilliseconds, longestMilliseconds: backoff.longestMilliseconds,
            attempts: backoff.attempts ?? Backoff.blobTransfer.attempts)
    }

    public init(attempts: Int, base: Duration, cap: Duration) {
        self.init(Backoff(first: base, longest: cap, attempts: attempts))
    }

    public var attempts: Int { backoff.attempts ?? 1 }

    /// The wait before try number `attempt + 1` (the first retry is attempt 1).
    public func delay(before attempt: Int) -> Duration {
        backoff.wait(afterFailures: attempt)
    }

    /// Runs `body` until it succeeds, fails for good, or runs out of tries;
    /// `retried` hears each transient failure that is tried again.
    public func run<T>(
        retried: (BlobTransferError) -> Void = { _ in },
        _ body: () async throws(BlobTransferError) -> T
    ) async throws(BlobTransferError) -> T {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch {
                attempt += 1
                guard error.isTransient, attempt < attempts else { throw error }
                retried(error)
                do {
                    try await Task.sleep(for: delay(before: attempt))
                } catch {
                    throw BlobTransferError(.cancelled, "cancelled")
                }
            }
        }
    }
}
