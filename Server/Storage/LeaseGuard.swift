import EaselPostgres
import EaselProtocol
import EaselSync

/// Closes a node's rooms before it serves them past what its lease
/// renewals vouch for (`LeaseKeeper.standing`): once the node may no longer
/// hold a lease, another node may be serving that document with edits this
/// node's room never saw, and a client that saw them would have its next
/// edits of them refused here (an entity the room does not know). Such a
/// room's clients are sent back through the router (503 `moved`), it
/// unloads, and its lease is released once its queued appends commit; the
/// document loads afresh, after a take, once the renewals are well again.
///
/// While renewals are late every room goes; after a renewal found the
/// leases possibly taken (a revocation), the rooms whose takes were asked
/// for before it go; a room still loading fails as its load is delivered
/// (`vetted`). Looked at on the service thread before each message is
/// served, before storage's answers are delivered, and on each tick: a
/// paused process resumes inside its event loop's wait with messages in.
final class LeaseGuard {
    private let keeper: LeaseKeeper
    private let held: HeldLeases
    private let storage: PostgresRoomStorage
    /// Revocations whose rooms have all gone.
    private var revocationsSettled = 0

    init(keeper: LeaseKeeper, held: HeldLeases, storage: PostgresRoomStorage) {
        self.keeper = keeper
        self.held = held
        self.storage = storage
    }

    func check(_ server: SyncServer, at now: Timestamp) {
        let standing = keeper.standing()
        guard !standing.mayServe || standing.revocations != revocationsSettled else { return }
        var loading = false
        for (name, _) in held.heldBefore(revocations: standing.mayServe ? standing.revocations : .max) {
            guard let document = try? DocumentName(name) else { continue }
            let failure = StorageFailure(
                .moved(to: nil), "this node's leases were not renewed in time: another node may hold \(name)")
            switch server.letGo(document, because: failure, at: now) {
            case .unloaded: break
            case .loading: loading = true
            case .absent: storage.unloaded(document, head: 0)
            }
        }
        if standing.mayServe && !loading { revocationsSettled = standing.revocations }
    }

    /// A room's load as it may be delivered: failed, its lease let go, when
    /// the take it followed is no longer vouched for (it loaded while the
    /// renewals were late, or a revocation came after the take). Checked
    /// on the service thread as it is delivered, since a room that loads
    /// serves the hellos and pushes that waited for it at once.
    func vetted(_ completion: StorageCompletion) -> StorageCompletion {
        let document: DocumentName
        switch completion {
        case .loaded(let name, .success): document = name
        case .warmed(let name, .success(_?)): document = name
        default: return completion
        }
        if let revocations = held.revocations(of: document.rawValue),
            keeper.standing().vouches(forTakesAskedAt: revocations)
        {
            return completion
        }
        storage.unloaded(document, head: 0)
        let failure = StorageFailure(
            .moved(to: nil), "this node's leases were not renewed in time to serve \(document.rawValue)")
        if case .warmed = completion { return .warmed(document, .failure(failure)) }
        return .loaded(document, .failure(failure))
    }
}
