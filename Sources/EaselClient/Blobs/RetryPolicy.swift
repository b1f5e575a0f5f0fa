/// How a blob transfer tries again after a transient failure: up to
/// `attempts` tries, waiting `base × 2^attempt`, at most `cap`, times a
/// random factor in 0.5…1 so many clients do not come back in step.
public struct RetryPolicy: Hashable, Sendable {
    public var attempts: Int
    public var base: Duration
    public var cap: Duration

    public init(attempts: Int = 5, base: Duration = .milliseconds(100), cap: Duration = .seconds(5)) {
        self.attempts = max(1, attempts)
        self.base = base
        self.cap = cap
    }

    /// The wait before try number `attempt + 1` (the first retry is attempt 1).
    public func delay(before attempt: Int) -> Duration {
        min(cap, base * (1 << min(attempt - 1, 20))) * Double.random(in: 0.5...1)
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
