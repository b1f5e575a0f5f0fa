import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// The room and real client engines wired back to back, message by message.
@Suite("Presence end to end")
struct PresenceGhostTests {
    final class Peer {
        var client: SyncClient
        var connection: ConnectionID?

        init(_ client: SyncClient) {
            self.client = client
        }
    }

    let harness: ServerHarness
    let watcher: Peer
    let leaver: Peer

    init() throws {
        harness = try ServerHarness(commitsImmediately: true)
        let document = harness.document
        let now = harness.now
        watcher = Peer(SyncClient(document: document, user: ServerHarness.user("bob"), replica: bob, at: now))
        leaver = Peer(SyncClient(document: document, user: ServerHarness.user("alice"), replica: alice, at: now))
    }

    func connect(_ peer: Peer) {
        let connection = harness.connect()
        peer.connection = connection
        peer.client.connectionOpened(at: harness.now)
        pump()
    }

    /// Moves messages both ways until nobody has anything to say.
    func pump(_ first: Transcript = Transcript()) {
        var transcript = first
        while true {
            for peer in [watcher, leaver] {
                guard let connection = peer.connection else { continue }
                for message in transcript.messages(to: connection) { peer.client.receive(message, at: harness.now) }
                if !transcript.closes(of: connection).isEmpty {
                    peer.client.connectionClosed(at: harness.now)
                    peer.connection = nil
                }
            }
            var next = Transcript()
            for peer in [watcher, leaver] {
                guard let connection = peer.connection else { continue }
                for case .send(let message) in peer.client.takeOutputs() {
                    next.outputs += harness.send(message, from: connection).outputs
                }
            }
            if next.outputs.isEmpty { return }
            transcript = next
        }
    }

    func bothPresent() {
        connect(watcher)
        connect(leaver)
        harness.now = harness.now + 100
        leaver.client.pointerMoved(to: Point(x: 40, y: 40), at: harness.now)
        pump()
    }

    @Test func aPeerThatDisconnectsDisappearsFromTheOthersPresence() {
        bothPresent()
        #expect(watcher.client.peers[alice]?.cursor == Point(x: 40, y: 40))
        guard let connection = leaver.connection else { return }
        leaver.client.connectionClosed(at: harness.now)
        leaver.connection = nil
        pump(harness.close(connection))
        #expect(watcher.client.peers[alice] == nil)
    }

    @Test func aPeerThatGoesSilentDisappearsFromTheOthersPresence() {
        bothPresent()
        #expect(watcher.client.peers[alice] != nil)
        // The leaver's process hangs: its socket stays open, nothing arrives.
        leaver.connection = nil
        for _ in 0..<13 {
            harness.now = harness.now + 5_000
            watcher.client.tick(at: harness.now)
            pump(harness.advance(by: 0))
        }
        #expect(watcher.client.peers[alice] == nil)
        #expect(watcher.client.connectionState == .connected, "the watcher's pings keep it alive")
    }
}
