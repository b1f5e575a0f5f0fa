import EaselModel
import EaselProtocol

/// Blob before op: an op that refers to an image's bytes waits in the
/// client until those bytes are stored on the server, so no other client
/// ever sees a reference to a blob the server cannot give it.
///
/// The app says when it starts uploading (`awaitBlob`), then how the upload
/// ended (`blobStored` or `blobFailed`). The place shows at once on this
/// screen, and every later op waits behind it, whatever it edits: a
/// replica's ops reach the server in the order of their counters. A room
/// tells an op sent again from a new one by the replica's high-water mark
/// (it keeps no list of every op's ID), so an op that came after a higher
/// counter of its replica was stored would be taken for one sent again,
/// acknowledged, and never stored.
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
        guard awaitedBlobs.contains(blob) else { return }
        // Offline, the ops are still in the outbox: held first, so they are found.
        holdOpsAwaitingBlobs()
        awaitedBlobs.remove(blob)
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
            outputs.append(
                .disconnect(reason: "an image's upload failed (\(reason)): reloading the document without it"))
        }
    }

    /// Moves the unsent ops from the first that refers to a blob still
    /// uploading on from the outbox to the held list, in order. While ops
    /// are held, the outbox holds only ops made before them: ops made since
    /// join the held list as they are made (`queue`).
    mutating func holdOpsAwaitingBlobs() {
        guard heldOps.isEmpty, !awaitedBlobs.isEmpty, let first = unsent.firstIndex(where: waitsForABlob) else {
            return
        }
        heldOps = Array(unsent[first...])
        unsent.removeSubrange(first...)
    }

    /// Moves the held ops before the first that still waits for a blob to
    /// the end of the outbox: everything there was made before them.
    /// Putting them anywhere else once sent an image's edits ahead of its
    /// create when two images uploaded at once, and the server refused the
    /// edits of an entity it did not know yet (206).
    private mutating func releaseHeldOps() {
        let ready = heldOps.firstIndex(where: waitsForABlob) ?? heldOps.endIndex
        unsent += heldOps[..<ready]
        heldOps.removeSubrange(..<ready)
    }

    private func waitsForABlob(_ op: Op) -> Bool {
        awaitedBlobs.contains { op.refers(to: $0) }
    }
}
