import EaselModel
import EaselPostgres
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

/// A private PostgreSQL server for one test, stopped when it ends.
func withPostgres<T>(_ body: (LocalPostgres) throws -> T) throws -> T {
    let server = try LocalPostgres()
    defer { server.stop() }
    return try body(server)
}

/// A node as the tests play it: its own connection, registered, holding
/// the advisory lock on its id for as long as the connection lives.
struct TestNode {
    let store: PostgresStore
    let identity: NodeIdentity

    init(_ server: LocalPostgres, name: String, timing: LeaseTiming = LeaseTiming()) throws {
        store = try PostgresStore(url: server.url)
        identity = try store.registerNode(name: name, address: "127.0.0.1:0", timing: timing)
    }

    func take(_ document: PostgresDocument) throws -> LeaseAnswer {
        try store.takeLease(of: document, for: identity)
    }

    func granted(_ document: PostgresDocument) throws -> Lease {
        guard case .granted(let lease) = try take(document) else {
            throw PostgresError(.unexpected, "the lease of \(document.name) was not granted to \(identity.name)")
        }
        return lease
    }
}

/// Ops of one replica, positioned from `first`, as a room logs them.
func logged(_ count: Int, from first: UInt64 = 1, replica: ReplicaID = alice, counter start: UInt64? = nil)
    -> [LoggedOp]
{
    let star = EntityID(opID(1, replica))
    return (0..<count).map { index in
        let counter = (start ?? first) + UInt64(index)
        let action: Op.Action = counter == 1 ? .create(.emoji, [.character("⭐️")]) : .set(star, .x(Float(counter)))
        return LoggedOp(position: first + UInt64(index), op: op(counter, replica, action), author: "ada", receivedAt: 7)
    }
}

func newDocument(_ store: PostgresStore, _ name: String) throws -> PostgresDocument {
    try store.createDocument(name, epoch: Epoch(rawValue: UInt64.random(in: 1...UInt64.max)), at: 1)
}
