import Synchronization

/// Until when a node may serve the documents it holds, by its own
/// monotonic clock.
///
/// Another node takes a lease only from a node whose row expired, by the
/// database's clock, or whose session ended. A renewal moves the expiry to
/// the database's `now()` plus the lease, and the database runs it after
/// the node sent it; so, counted from when the node sent its last renewal
/// that found its row unexpired, the lease cannot have run out for another
/// node before it runs out here. Past that instant another node may have
/// taken a document and committed edits the node's room never saw: served
/// from there, clients that saw those edits would have their next edits of
/// them refused (an entity the stale room does not know). The node stops
/// serving then, and whenever a renewal found its row expired or its
/// session gone, until a renewal finds all well again.
final class ServingDeadline: Sendable {
    private let origin: ContinuousClock.Instant
    /// Nanoseconds after `origin`, and the revocations so far: read
    /// together, so no one sees a new deadline with an old count.
    private let state: Mutex<(deadline: Int64, revocations: Int)>

    init(until instant: ContinuousClock.Instant) {
        let origin = ContinuousClock.now
        self.origin = origin
        state = Mutex(((instant - origin).nanoseconds, 0))
    }

    func standing(at now: ContinuousClock.Instant) -> ServingStanding {
        let nanoseconds = (now - origin).nanoseconds
        return state.withLock { ServingStanding(mayServe: nanoseconds < $0.deadline, revocations: $0.revocations) }
    }

    /// A renewal found the row unexpired on the session holding the lock:
    /// serving may go on until `instant`.
    func extend(to instant: ContinuousClock.Instant) {
        let nanoseconds = (instant - origin).nanoseconds
        state.withLock { $0.deadline = nanoseconds }
    }

    /// The leases may have been taken: serve nothing until a renewal says
    /// otherwise.
    func revoke() {
        state.withLock {
            $0.deadline = .min
            $0.revocations += 1
        }
    }
}

/// Whether a node may serve now, and how many times its leases were found
/// possibly taken since it started: a count that moved since the last look
/// means every room held then must close, even if serving may go on now.
public struct ServingStanding: Hashable, Sendable {
    public var mayServe: Bool
    public var revocations: Int

    public init(mayServe: Bool, revocations: Int) {
        self.mayServe = mayServe
        self.revocations = revocations
    }

    /// Whether a lease taken by a take asked for when the count was
    /// `revocations` may be served from now.
    public func vouches(forTakesAskedAt revocations: Int) -> Bool {
        mayServe && self.revocations == revocations
    }
}
