import EaselModel
import EaselProtocol
import Testing

@testable import EaselSync

/// A room keeps a member for every joined connection, in a table whose
/// slots are as wide as a member: what an idle connection costs beyond
/// lws's own is mostly that (`easel bench serve` measures it against a
/// bare relay; the bar is 1.1x the relay's).
@Suite struct MemberSizeTests {
    @Test func aMembersSlotHoldsItsPresenceAsAPointerNotInline() {
        #expect(MemoryLayout<Member>.stride <= 160, "\(MemoryLayout<Member>.stride) bytes")
        #expect(MemoryLayout<Presence>.stride > 160, "a presence is no longer big: this test guards nothing")
    }

    @Test func aMembersPresenceReadsBackAsSetAndClears() {
        var member = Member(
            replica: ReplicaID(rawValue: 1), user: UserInfo(name: "a", initials: "A", color: .black), author: "a",
            role: .edit, protocolVersion: WireProtocol.version, sentThrough: 0, lastHeard: Timestamp(milliseconds: 0),
            presence: nil)
        #expect(member.presence == nil)
        let presence = Presence(
            replica: ReplicaID(rawValue: 1), user: UserInfo(name: "a", initials: "A", color: .black),
            cursor: Point(x: 3, y: 4))
        member.presence = presence
        var copy = member
        copy.presence?.idle = true
        #expect(member.presence == presence, "a copy's change leaves the original's presence alone")
        #expect(copy.presence?.idle == true)
        member.presence = nil
        #expect(member.presence == nil)
    }
}
