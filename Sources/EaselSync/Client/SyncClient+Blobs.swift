import EaselModel
import EaselProtocol

/// Blob before op: an op that refers to an image's bytes waits in the
/// client until those bytes are stored on the server, so no other client
/// ever sees a reference to a blob the server cannot give it.
///
/// The app says when it starts uploading (`awaitBlob`), then how the upload
/// ended (`blobStored` or `blobFailed`). The place shows at once on this
/// screen, and every later op on a waiting entity (a move, a delete) waits
/// behind its create; edits of other entities go out as usual.
extension SyncClient {
    /// This blob's upload is under way: ops that refer to it wait.
    public mutating func awaitBlob(_ blob: BlobHash) {
        awaitedBlobs.insert(blob)
    }

    /// The server stored the blob: what waited for it goes out with the
    /// next push.
    public mutating func blobStored(_ blob: BlobHash) {
        guard awaitedBlobs.remove(blob) != nil else { return }
        releaseHeldOps()
    }

    /// The upload failed for good (the server refused the bytes, or the app
    /// gave up): the ops that placed the blob, and every later op on what
    /// they placed, are dropped, and the document is rebuilt without them
    /// from a fresh snapshot, as after a refused push. An op that only set
    /// the blob on an entity that existed before is dropped alone.
    public mutating func blobFailed(_ blob: BlobHash, reason: String) {
        guard awaitedBlobs.remove(blob) != nil else { return }
        var placed = Set<EntityID>()
        var dropped: [Op] = []
        var kept: [Op] = []
        for op in heldOps {
            let refersToBlob = op.refers(to: blob)
            if refersToBlob, case .create = op.action { placed.insert(op.entity) }
            if refersToBlob || placed.contains(op.entity) { dropped.append(op) } else { kept.append(op) }
        }
        heldOps = kept
        releaseHeldOps()
        guard !dropped.isEmpty else { return }
        events.append(.placeFailed(blob, reason: reason, dropped: dropped))
        needsSnapshot = true
        if isConnected {
            outputs.append(.disconnect(reason: "an image's upload failed (\(reason)): reloading the document without it"))
        }
    }

    /// Moves the unsent ops that must wait for a blob from the outbox to
    /// the held list, in order.
    mutating func holdOpsAwaitingBlobs() {
        guard !awaitedBlobs.isEmpty else { return }
        var waiting = Set<EntityID>()
        for op in heldOps { waiting.insert(op.entity) }
        var ready: [Op] = []
        for op in unsent {
            if mustWait(op, behind: &waiting) { heldOps.append(op) } else { ready.append(op) }
        }
        unsent = ready
    }

    /// Puts the held ops no longer waiting for anything back at the front
    /// of the outbox: they were made before what is there now.
    private mutating func releaseHeldOps() {
        var waiting = Set<EntityID>()
        var ready: [Op] = []
        var stillHeld: [Op] = []
        for op in heldOps {
            if mustWait(op, behind: &waiting) { stillHeld.append(op) } else { ready.append(op) }
        }
        heldOps = stillHeld
        unsent = ready + unsent
    }

    /// Whether an op waits: it refers to a blob still uploading, or it
    /// comes after an op on the same entity that waits (a create above
    /// all: the server refuses ops on entities it has never seen).
    private func mustWait(_ op: Op, behind waiting: inout Set<EntityID>) -> Bool {
        if waiting.contains(op.entity) { return true }
        for blob in awaitedBlobs where op.refers(to: blob) {
            waiting.insert(op.entity)
            return true
        }
        return false
    }
}

