import EaselPostgres
import EaselTestSupport
import Foundation
import Testing

/// When a node may serve what it holds, by its own renewals (`LeaseKeeper.standing`).
@Suite("A node's standing to serve")
struct ServingStandingTests {
    static let timing = LeaseTiming(ttl: .milliseconds(600))

    /// Waits until the keeper's standing satisfies `condition`, for at most 5 s.
    private func eventually(_ keeper: LeaseKeeper, _ condition: (ServingStanding) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if condition(keeper.standing()) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    @Test(
        "a node whose renewals stop going through may not serve once its lease, counted from its last renewal, has run out; the renewal that ends too late to vouch for the lease revokes, and a later one lets it serve again"
    )
    func stalledRenewalsEndServing() throws {
        try withPostgres { server in
            let keeper = try LeaseKeeper(
                url: server.url, name: "stalled", address: "127.0.0.1:1", timing: Self.timing, lost: { _ in })
            defer { keeper.stop() }
            #expect(keeper.standing() == ServingStanding(mayServe: true, revocations: 0))
            Thread.sleep(forTimeInterval: 0.5)
            #expect(keeper.standing().mayServe, "a node renewing on time stopped serving")
            // The node's row locked: its renewals wait (and time out).
            let blocker = try PostgresStore(url: server.url, migrating: false)
            try blocker.connection.execute("BEGIN")
            try blocker.connection.query("SELECT 1 FROM nodes WHERE id = $1 FOR UPDATE") { $0.append(keeper.node.id) }
            let stalled = Date()
            #expect(eventually(keeper) { !$0.mayServe }, "still serving while no renewal went through")
            // The last renewal was sent before the lock, its lease (less a
            // tenth) runs out 0.54 s after at the latest; the rest is polling.
            #expect(Date().timeIntervalSince(stalled) < 0.75, "served past the lease")
            #expect(keeper.standing().revocations == 0)
            Thread.sleep(forTimeInterval: 0.3)
            try blocker.connection.execute("ROLLBACK")
            // The renewal behind the lock ends past the lease it would have
            // renewed (another node might have taken a lease meanwhile):
            // revoked; a later one finds all well.
            #expect(eventually(keeper) { $0.revocations >= 1 && $0.mayServe }, "\(keeper.standing())")
        }
    }

    @Test(
        "a renewal that finds the node's row expired, though it renewed on time, revokes the node's standing until the next renewal"
    )
    func anExpiredRowRevokes() throws {
        try withPostgres { server in
            let keeper = try LeaseKeeper(
                url: server.url, name: "expired", address: "127.0.0.1:1", timing: Self.timing, lost: { _ in })
            defer { keeper.stop() }
            let other = try PostgresStore(url: server.url, migrating: false)
            try other.connection.query("UPDATE nodes SET expires_at = now() - interval '1 second' WHERE id = $1") {
                $0.append(keeper.node.id)
            }
            #expect(eventually(keeper) { !$0.mayServe && $0.revocations == 1 }, "\(keeper.standing())")
            #expect(eventually(keeper) { $0 == ServingStanding(mayServe: true, revocations: 1) })
            #expect(keeper.standing().vouches(forTakesAskedAt: 1))
            #expect(!keeper.standing().vouches(forTakesAskedAt: 0))
        }
    }

    @Test(
        "a node whose session holding its lock ended (anyone could take its leases meanwhile) is revoked when it notices"
    )
    func aLostSessionRevokes() throws {
        try withPostgres { server in
            let keeper = try LeaseKeeper(
                url: server.url, name: "cut", address: "127.0.0.1:1", timing: Self.timing, lost: { _ in })
            defer { keeper.stop() }
            let other = try PostgresStore(url: server.url, migrating: false)
            let ended = try other.connection.query(
                """
                SELECT pg_terminate_backend(pid) FROM pg_locks
                WHERE locktype = 'advisory' AND granted AND mode = 'ExclusiveLock' AND objid = $1
                """
            ) { $0.append(keeper.node.id) }
            #expect(ended.count == 1, "no session held the node's lock")
            #expect(eventually(keeper) { $0.revocations >= 1 }, "\(keeper.standing())")
            #expect(eventually(keeper) { $0.revocations >= 1 && $0.mayServe }, "\(keeper.standing())")
        }
    }
}
