import EaselModel
import EaselProtocol

extension SyncClient {
    /// A gesture from the screen (or a bot): applied at once, its ops queued
    /// for the server.
    public mutating func send(_ event: GestureEvent, at now: Timestamp) throws(ModelError) {
        let ops = try editor.send(event)
        unsent += ops
        interacted(at: now)
    }

    /// A command from a button, a menu or a bot: applied at once, its ops
    /// queued for the server.
    public mutating func perform(_ command: Command, at now: Timestamp) throws(ModelError) {
        let ops = try editor.perform(command)
        unsent += ops
        interacted(at: now)
    }

    /// The pointer moved (in screen units), or left the canvas (nil).
    public mutating func pointerMoved(to point: Point?, at now: Timestamp) {
        cursor = point.map { editor.state.displayedViewport.documentPoint(fromScreen: $0) }
        interacted(at: now)
    }

    private mutating func interacted(at now: Timestamp) {
        lastInteraction = now
        latestTime = max(latestTime, now)
        sharePresence(at: now)
    }

    /// Cuts the unsent ops into pushes, each within the protocol's op and
    /// byte limits in this connection's encoding, and sends them. Called as
    /// outputs are taken, so the ops of one loop turn travel together.
    mutating func formPushes() {
        guard isConnected, isWelcomed, !unsent.isEmpty else { return }
        var start = 0
        while start < unsent.count {
            var end = min(start + ProtocolLimits.opsPerPush, unsent.count)
            var push = Push(batch: nextBatch, ops: Array(unsent[start..<end]))
            while end - start > 1,
                Message.push(push).encoded(as: configuration.encoding).count > ProtocolLimits.messageBytes
            {
                end = start + (end - start) / 2
                push.ops = Array(unsent[start..<end])
            }
            nextBatch += 1
            inFlight.append(OutgoingPush(batch: push.batch, ops: push.ops, sentAt: latestTime))
            outputs.append(.send(.push(push)))
            start = end
        }
        unsent = []
    }
}
