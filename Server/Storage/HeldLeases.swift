import EaselLocking
import EaselPostgres
import EaselProtocol
import Foundation

/// The documents this node holds the lease of, by name: written by loads
/// and unloads, read by appends, and thinned by the lease keeper when it
/// finds leases another node took (their rooms' next appends fail as moved).
final class HeldLeases: Sendable {
    private struct Held {
        var document: PostgresDocument
        var lease: Lease
        var since: ContinuousClock.Instant
        /// The lease keeper's revocations when the take was asked for: a
        /// later one puts the lease in doubt (`LeaseGuard`).
        var revocations: Int
    }

    /// By name, and the names by document id (the lease keeper and other
    /// nodes name documents by id), kept together.
    private struct Table {
        var byName: [String: Held] = [:]
        var nameByID: [Int64: String] = [:]

        mutating func set(_ name: String, _ held: Held?) {
            if let old = byName[name] { nameByID[old.document.id] = nil }
            byName[name] = held
            if let held { nameByID[held.document.id] = name }
        }
    }

    private let table = Locked(Table())
    /// Told the names of documents whose leases were lost, to close their rooms.
    private let onLost = Locked<(@Sendable ([DocumentName]) -> Void)?>(nil)

    init() {}

    func whenLost(_ handler: @escaping @Sendable ([DocumentName]) -> Void) {
        onLost.withLock { $0 = handler }
    }

    func hold(_ name: String, _ document: PostgresDocument, _ lease: Lease, revocations: Int) {
        table.withLock {
            $0.set(name, Held(document: document, lease: lease, since: .now, revocations: revocations))
        }
    }

    func lease(of name: String) -> (document: PostgresDocument, lease: Lease)? {
        table.withLock { $0.byName[name].map { ($0.document, $0.lease) } }
    }

    func remove(_ name: String) -> (document: PostgresDocument, lease: Lease)? {
        table.withLock { table in
            let held = table.byName[name]
            table.set(name, nil)
            return held.map { ($0.document, $0.lease) }
        }
    }

    /// The document held under this id: its name, and since when.
    func document(id: Int64) -> (name: String, since: ContinuousClock.Instant)? {
        table.withLock { table in
            table.nameByID[id].flatMap { name in table.byName[name].map { (name, $0.since) } }
        }
    }

    /// Every document held: name, id, and since when.
    var documents: [(name: String, id: Int64, since: ContinuousClock.Instant)] {
        table.withLock { table in table.byName.map { ($0.key, $0.value.document.id, $0.value.since) } }
    }

    /// The revocations counted when the document's take was asked for.
    func revocations(of name: String) -> Int? {
        table.withLock { $0.byName[name]?.revocations }
    }

    /// The documents held by takes asked for before the `revocations`th
    /// revocation (all of them with `.max`): name and id.
    func heldBefore(revocations: Int) -> [(name: String, id: Int64)] {
        table.withLock { table in
            table.byName.compactMap { $0.value.revocations < revocations ? ($0.key, $0.value.document.id) : nil }
        }
    }

    /// Forgets a lease that was found fenced, unless it was taken again since.
    func drop(_ name: String, if lease: Lease) {
        table.withLock { if $0.byName[name]?.lease == lease { $0.set(name, nil) } }
    }

    func lost(_ documents: [Int64]) {
        let names = table.withLock { table in
            let lost = documents.compactMap { table.nameByID[$0] }
            for name in lost { table.set(name, nil) }
            return lost.compactMap { try? DocumentName($0) }
        }
        if !names.isEmpty { onLost.value?(names) }
    }
}
