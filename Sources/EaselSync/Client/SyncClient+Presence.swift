import EaselModel
import EaselProtocol

extension SyncClient {
    /// This client's presence as peers should see it now.
    public func presence(at now: Timestamp) -> Presence {
        Presence(
            replica: replica, user: user, cursor: cursor, viewport: visibleArea,
            selection: Array(editor.state.selection.sorted().prefix(ProtocolLimits.entitiesInPresence)),
            gesture: gesturePreview,
            idle: now.milliseconds(since: lastInteraction) >= configuration.idleAfter)
    }

    /// Sends presence when it changed and the throttle allows; an idle
    /// client's presence stops changing, so it goes quiet.
    mutating func sharePresence(at now: Timestamp) {
        guard isConnected, isWelcomed else { return }
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
        case .panning?, .zooming?, nil:
            return nil
        }
    }
}
