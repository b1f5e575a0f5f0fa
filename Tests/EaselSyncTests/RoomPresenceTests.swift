import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

@Suite("Room: presence")
struct RoomPresenceTests {
    func presence(cursorX x: Float) -> Presence {
        Presence(replica: alice, user: ServerHarness.user("alice"), cursor: Point(x: x, y: 0))
    }

    @Test func presenceIsRelayedToTheOthersUnderTheConnectionsOwnReplicaAndUser() throws {
        let harness = try ServerHarness()
        let (sender, _) = harness.join(alice, as: "alice")
        let (peer, _) = harness.join(bob, as: "bob")
        var forged = presence(cursorX: 5)
        forged.replica = carol
        forged.user = ServerHarness.user("carol")
        let transcript = harness.send(.presence(forged), from: sender)
        #expect(transcript.messages(to: peer) == [.presence(presence(cursorX: 5))])
        #expect(transcript.messages(to: sender).isEmpty)
    }

    @Test func presenceStateReachesVersionTwoConnectionsAndIsLeftOutForVersionOneInRelayAndWelcome() throws {
        let harness = try ServerHarness()
        let (sender, _) = harness.join(alice, as: "alice", protocol: 2)
        let (current, _) = harness.join(bob, as: "bob", protocol: 2)
        let (older, _) = harness.join(carol, as: "carol", protocol: 1)
        var withState = presence(cursorX: 5)
        withState.state = PresenceState(position: 0, hash: StateHash(rawValue: 42))
        let transcript = harness.send(.presence(withState), from: sender)
        #expect(transcript.messages(to: current) == [.presence(withState)])
        #expect(transcript.messages(to: older) == [.presence(presence(cursorX: 5))])

        let (lateCurrent, currentWelcome) = harness.join(ReplicaID(rawValue: 0xD0), as: "dave", protocol: 2)
        let (lateOlder, olderWelcome) = harness.join(ReplicaID(rawValue: 0xE0), as: "erin", protocol: 1)
        #expect(try #require(currentWelcome.welcome(to: lateCurrent)).peers.contains(withState))
        let olderPeers = try #require(olderWelcome.welcome(to: lateOlder)).peers
        #expect(olderPeers.contains(presence(cursorX: 5)) && olderPeers.allSatisfy { $0.state == nil })
        #expect(try #require(olderWelcome.welcome(to: lateOlder)).protocolVersion == 1)
    }

    @Test func aTextCaretReachesVersionFourConnectionsAndIsLeftOutForOlderOnes() throws {
        let harness = try ServerHarness()
        let (sender, _) = harness.join(alice, as: "alice", protocol: 4)
        let (current, _) = harness.join(bob, as: "bob", protocol: 4)
        let (older, _) = harness.join(carol, as: "carol", protocol: 3)
        var typing = presence(cursorX: 5)
        let text = EntityID(OpID(counter: 1, replica: alice))
        typing.caret = TextCaret(text: text, anchor: .start, head: TextAnchor(after: OpID(counter: 3, replica: alice)))
        let transcript = harness.send(.presence(typing), from: sender)
        #expect(transcript.messages(to: current) == [.presence(typing)])
        #expect(transcript.messages(to: older) == [.presence(presence(cursorX: 5))])
    }

    @Test func presenceBeyondTwentyASecondIsHeldAndOnlyTheLatestRelayedWhenTheIntervalEnds() throws {
        let harness = try ServerHarness()
        let (sender, _) = harness.join(alice, as: "alice")
        let (peer, _) = harness.join(bob, as: "bob")
        #expect(harness.send(.presence(presence(cursorX: 1)), from: sender).messages(to: peer).count == 1)
        harness.now = harness.now + 10
        #expect(harness.send(.presence(presence(cursorX: 2)), from: sender).messages(to: peer).isEmpty)
        #expect(harness.send(.presence(presence(cursorX: 3)), from: sender).messages(to: peer).isEmpty)
        #expect(harness.advance(by: 20).messages(to: peer).isEmpty)
        #expect(harness.advance(by: 20).messages(to: peer) == [.presence(presence(cursorX: 3))])
        #expect(harness.advance(by: 100).messages(to: peer).isEmpty)
    }

    @Test func aPeerThatDisconnectsLeavesNoGhostBehind() throws {
        let harness = try ServerHarness()
        let (leaver, _) = harness.join(alice, as: "alice")
        let (peer, _) = harness.join(bob, as: "bob")
        harness.send(.presence(presence(cursorX: 1)), from: leaver)
        #expect(harness.close(leaver).messages(to: peer) == [.leave(alice)])
        let (newcomer, joined) = harness.join(carol, as: "carol")
        #expect(try #require(joined.welcome(to: newcomer)).peers.isEmpty)
    }

    @Test func aPeerThatGoesSilentIsClosedAndLeavesNoGhostBehind() throws {
        let harness = try ServerHarness()
        let (silent, _) = harness.join(alice, as: "alice")
        let (peer, _) = harness.join(bob, as: "bob")
        harness.send(.presence(presence(cursorX: 1)), from: silent)
        harness.advance(by: 30_000)
        harness.send(.ping(nonce: 1), from: peer)
        let transcript = harness.advance(by: 30_000)
        #expect(transcript.closes(of: silent) == [.silent])
        #expect(transcript.messages(to: peer) == [.leave(alice)])
        #expect(transcript.closes(of: peer).isEmpty)
    }
}
