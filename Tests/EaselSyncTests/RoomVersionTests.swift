import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

@Suite("Room: what each protocol version is sent")
struct RoomVersionTests {
    static let eraser = EntityID(opID(1, alice))
    static let erased = [ErasedEntity(entity: EntityID(opID(9, bob)), transform: Transform(x: 5, y: 6))]

    /// An eraser stroke as the editor streams it: created with an empty
    /// `erases`, then set to what it reached.
    static var eraserOps: [Op] {
        let transaction = TransactionID(opID(1, alice))
        return [
            Op(id: opID(1, alice), transaction: transaction, action: .create(.stroke, [.tool(.eraser), .erases([])])),
            Op(id: opID(2, alice), transaction: transaction, action: .set(eraser, .erases(erased))),
        ]
    }

    static func ops(_ messages: [Message]) -> [Op] {
        messages.flatMap { message -> [Op] in if case .ops(let ops) = message { ops.map(\.op) } else { [] } }
    }

    @Test func aConnectionBelowVersionThreeGetsErasersWithoutErasesAndVersionThreeGetsThemWhole() throws {
        let harness = try ServerHarness()
        let (author, _) = harness.join(alice, as: "alice", protocol: 3)
        let (current, _) = harness.join(bob, as: "bob", protocol: 3)
        let (older, _) = harness.join(carol, as: "carol", protocol: 2)
        let transcript = harness.pushCommitted(Self.eraserOps, from: author)
        #expect(Self.ops(transcript.messages(to: current)) == Self.eraserOps)
        let withoutErases = Op(
            id: opID(1, alice), transaction: TransactionID(opID(1, alice)), action: .create(.stroke, [.tool(.eraser)]))
        #expect(Self.ops(transcript.messages(to: older)) == [withoutErases], "the set of erases is left out")

        let (lateCurrent, currentWelcome) = harness.join(ReplicaID(rawValue: 0xD0), as: "dave", protocol: 3)
        let (lateOlder, olderWelcome) = harness.join(ReplicaID(rawValue: 0xE0), as: "erin", protocol: 1)
        func fields(_ welcome: Welcome?) -> [FieldID] {
            guard case .snapshot(let ops)? = welcome?.content else { return [] }
            return ops.flatMap { op -> [FieldID] in
                switch op.action {
                case .create(_, let fields): fields.map(\.id)
                case .set(_, let field): [field.id]
                default: []
                }
            }
        }
        #expect(fields(currentWelcome.welcome(to: lateCurrent)).contains(.erases))
        #expect(!fields(olderWelcome.welcome(to: lateOlder)).contains(.erases))
        #expect(olderWelcome.welcome(to: lateOlder)?.protocolVersion == 1)
    }

    /// Joiners of one version share one conversion of the snapshot, so the
    /// conversion must follow every commit and never answer another version.
    @Test func anOlderVersionsWelcomeFollowsCommitsAndIsNotSentToOtherVersions() throws {
        let harness = try ServerHarness()
        let (author, _) = harness.join(alice, as: "alice", protocol: 3)
        _ = harness.pushCommitted([Self.eraserOps[0]], from: author)
        func snapshot(_ replica: ReplicaID, _ name: String, protocol version: UInt32) -> [Op] {
            let (joiner, transcript) = harness.join(replica, as: name, protocol: version)
            guard case .snapshot(let ops)? = transcript.welcome(to: joiner)?.content else { return [] }
            return ops
        }
        let before = snapshot(bob, "bob", protocol: 2)
        _ = harness.pushCommitted([Self.eraserOps[1]], batch: 2, from: author)
        let after = snapshot(carol, "carol", protocol: 2)
        let current = snapshot(ReplicaID(rawValue: 0xD0), "dave", protocol: 3)
        #expect(before == after, "a set of erases adds nothing a version 2 peer reads")
        let fresh = Op(
            id: opID(9, alice), transaction: TransactionID(opID(9, alice)), action: .create(.emoji, [.x(1), .y(2)]))
        _ = harness.pushCommitted([fresh], batch: 3, from: author)
        let later = snapshot(ReplicaID(rawValue: 0xE0), "erin", protocol: 2)
        #expect(later.count == after.count + 1, "the commit after the cached conversion shows")
        func writesErases(_ op: Op) -> Bool {
            switch op.action {
            case .create(_, let fields): fields.contains { $0.id == .erases }
            case .set(_, let field): field.id == .erases
            default: false
            }
        }
        #expect(current.contains(where: writesErases), "version 3 is sent erases, not version 2's conversion")
        #expect(!after.contains(where: writesErases))
    }
}
