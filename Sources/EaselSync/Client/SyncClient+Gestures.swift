import EaselModel
import EaselProtocol

/// A peer's gesture that ended before the ops committing it arrived.
///
/// The server relays presence at once but ops only after their commit, so a
/// peer's "gesture over" usually overtakes the ops that put its entities
/// where the gesture left them. Shown until then, the entities never jump
/// back for the frames between.
public struct SettlingGesture: Sendable {
    public var replica: ReplicaID
    public var gesture: GesturePreview
    /// When it is let go even if no op came (a cancelled gesture commits
    /// nothing).
    public var until: Timestamp
}

extension SyncClient {
    // Plain loops here, not sort or removeAll(where:): the web module is
    // compiled whole, and each such call with its closure adds kilobytes.

    /// The gestures to draw for peers: their live gestures by replica, then
    /// those they just ended while the ops are on their way (a live gesture
    /// wins over a settling one on the same entity).
    public var peerGestures: [(replica: ReplicaID, gesture: GesturePreview)] {
        var gestures: [(replica: ReplicaID, gesture: GesturePreview)] = []
        for (replica, presence) in peers {
            guard let gesture = presence.gesture else { continue }
            gestures.append((replica, gesture))
            var index = gestures.count - 1
            while index > 0, gestures[index - 1].replica.rawValue > replica.rawValue {
                gestures.swapAt(index - 1, index)
                index -= 1
            }
        }
        for settling in settlingGestures { gestures.append((settling.replica, settling.gesture)) }
        return gestures
    }

    /// A peer's new presence: a gesture now over settles (one a peer at a
    /// time). A new gesture leaves a settling move in place, but not a
    /// settling stroke: one stroke in progress is drawn per peer.
    mutating func noteGesture(of presence: Presence, at now: Timestamp) {
        let ended = presence.gesture == nil ? peers[presence.replica]?.gesture : nil
        var index = settlingGestures.count
        while index > 0 {
            index -= 1
            let settling = settlingGestures[index]
            guard settling.replica == presence.replica else { continue }
            if ended != nil || (presence.gesture != nil && settling.gesture.isStroke) {
                settlingGestures.remove(at: index)
            }
        }
        guard let ended else { return }
        settlingGestures.append(
            SettlingGesture(replica: presence.replica, gesture: ended, until: now + configuration.settlingGestureLimit))
    }

    /// Received ops: a peer's op on an entity its gesture moves commits that
    /// gesture, which then stops being drawn, settled or (if the ops
    /// overtook the presence that ends it, sent late by its throttle) still
    /// live; a settled stroke ends with the peer's next op, its stroke.
    mutating func noteCommits(_ ops: [PositionedOp]) {
        var live = false
        for presence in peers.values where presence.gesture != nil { live = true }
        guard live || !settlingGestures.isEmpty else { return }
        for index in ops.indices {
            let op = ops[index].op
            var settled = settlingGestures.count
            while settled > 0 {
                settled -= 1
                let settling = settlingGestures[settled]
                if settling.replica == op.id.replica, settling.gesture.isCommitted(by: op) {
                    settlingGestures.remove(at: settled)
                }
            }
            guard var presence = peers[op.id.replica], let gesture = presence.gesture,
                gesture.entities.contains(op.entity)
            else { continue }
            presence.gesture = nil
            peers[op.id.replica] = presence
        }
    }

    /// Lets go of settled gestures whose ops never came.
    mutating func expireSettlingGestures(at now: Timestamp) {
        var index = settlingGestures.count
        while index > 0 {
            index -= 1
            if settlingGestures[index].until <= now { settlingGestures.remove(at: index) }
        }
    }
}

extension GesturePreview {
    fileprivate var isStroke: Bool {
        if case .drawing = self { true } else { false }
    }

    /// Whether `op`, made by the gesture's author, commits it.
    fileprivate func isCommitted(by op: Op) -> Bool {
        isStroke || entities.contains(op.entity)
    }
}
