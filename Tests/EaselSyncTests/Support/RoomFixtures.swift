import EaselModel
import EaselProtocol
import EaselTestSupport

/// Small documents for the room tests: alice's star, her stroke, bob's note.
enum RoomFixtures {
    static let star = EntityID(opID(1, alice))
    static let stroke = EntityID(opID(2, alice))

    static func createStar(_ counter: UInt64 = 1) -> Op { op(counter, alice, .create(.emoji, [.character("⭐️")])) }

    static func createStroke(_ counter: UInt64 = 2) -> Op { op(counter, alice, .create(.stroke, [.tool(.pen)])) }

    static func moveStar(_ counter: UInt64, by replica: ReplicaID = alice, to x: Float = 10) -> Op {
        op(counter, replica, .set(star, .x(x)))
    }

    static func append(_ counter: UInt64, by replica: ReplicaID = alice, at start: UInt32, x: Float = 1) -> Op {
        op(counter, replica, .append(stroke, start: start, samples: [sample(x, 0, 0)]))
    }

    static func positions(_ message: Message) -> [UInt64] {
        guard case .ops(let ops) = message else { return [] }
        return ops.map(\.position)
    }
}
