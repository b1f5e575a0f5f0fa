import EaselModel
import EaselProtocol

extension SyncClient {
    /// This client's presence as peers should see it now.
    public func presence(at now: Timestamp) -> Presence {
        Presence(
            replica: replica, user: user, cursor: cursor, viewport: visibleArea,
            selection: Array(editor.state.selection.sorted().prefix(ProtocolLimits.entitiesInPresence)),
            gesture: gesturePreview,
            idle: now.milliseconds(since: lastInteraction) >= configuration.idleAfter,
            state: agreedVersion >= WireProtocol.presenceStateVersion ? sharedState?.state : nil,
            caret: agreedVersion >= WireProtocol.textVersion ? editor.state.textCaret : nil)
    }

    /// This copy's state at its position in the log, when the document is
    /// exactly the log's first ops there: welcomed, every local edit
    /// acknowledged, no refused edit waiting to be undone by a snapshot.
    /// Nil otherwise.
    public var stateAtPosition: PresenceState? {
        guard isWelcomed, !needsSnapshot, unacknowledgedCount == 0, let point = resumePoint else { return nil }
        if let shared = sharedState, shared.epoch == point.epoch, shared.state.position == point.position {
            return shared.state
        }
        return PresenceState(position: point.position, hash: editor.document.stateHash)
    }

    /// How this copy's state compares with the states peers shared: the
    /// peers at the same position with the same hash, and those at the same
    /// position with another (diverged). Peers at other positions are in
    /// neither.
    public var stateAgreement: (agreeing: [ReplicaID], disagreeing: [ReplicaID]) {
        guard let mine = sharedState?.state, mine.position == resumePoint?.position else { return ([], []) }
        var agreeing: [ReplicaID] = []
        var disagreeing: [ReplicaID] = []
        for (replica, presence) in peers {
            guard let theirs = presence.state, theirs.position == mine.position else { continue }
            if theirs.hash == mine.hash { agreeing.append(replica) } else { disagreeing.append(replica) }
        }
        return (agreeing.sorted { $0.rawValue < $1.rawValue }, disagreeing.sorted { $0.rawValue < $1.rawValue })
    }

    /// The gap between two hashes of this document: `stateInterval` for
    /// each `stateRecordsPerInterval` records, at least one.
    var stateGap: Int64 {
        let per = max(configuration.stateRecordsPerInterval, 1)
        let intervals = max(1, (editor.document.recordCount + per - 1) / per)
        return configuration.stateInterval * Int64(intervals)
    }

    /// Takes this copy's state into what presence shares, at most once per
    /// `stateGap` and never while a gesture is in flight (hashing a large
    /// document would cost the gesture its frames); the same position is
    /// never hashed twice.
    mutating func refreshSharedState(at now: Timestamp) {
        guard editor.state.gesture == nil else { return }
        if let due = stateDueAt, now < due { return }
        guard let point = resumePoint else { return }
        if let shared = sharedState, shared.epoch == point.epoch, shared.state.position == point.position { return }
        guard let state = stateAtPosition else { return }
        sharedState = (point.epoch, state)
        stateDueAt = now + stateGap
    }

    /// Sends presence when it changed and the throttle allows; an idle
    /// client's presence stops changing, so it goes quiet.
    mutating func sharePresence(at now: Timestamp) {
        guard isConnected, isWelcomed else { return }
        refreshSharedState(at: now)
        if let sentAt = presenceSentAt, now.milliseconds(since: sentAt) < configuration.presenceInterval { return }
        let current = presence(at: now)
        guard current != lastPresenceSent else { return }
        lastPresenceSent = current
        presenceSentAt = now
        outputs.append(.send(.presence(current)))
    }

    /// The gesture in flight, for peers to draw before it commits.
    private var gesturePreview: GesturePreview? {
        func entities(_ ids: Set<EntityID>) -> [EntityID] {
            Array(ids.sorted().prefix(ProtocolLimits.entitiesInPresence))
        }
        switch editor.state.gesture {
        case .moving(let ids, let offset)?: return .moving(entities(ids), by: offset)
        case .scaling(let ids, let factor)?: return .scaling(entities(ids), by: factor)
        case .rotating(let ids, let angle)?: return .rotating(entities(ids), by: angle)
        case .drawing(let progress)?:
            guard let stroke = editor.document[progress.stroke], case .stroke(let content) = stroke.content else {
                return nil
            }
            let points = content.samples.suffix(ProtocolLimits.previewPoints).map {
                Point(x: progress.origin.x + $0.x, y: progress.origin.y + $0.y)
            }
            return .drawing(tool: content.tool, color: stroke.style.color, weight: stroke.style.weight, points: points)
        case .panning?, .zooming?, .erasing?, .lassoing?, .shaping?, nil:
            return nil
        }
    }
}
