import EaselModel
import EaselProtocol
import EaselStore
import EaselTestSupport

let now: Int64 = 1_795_000_000_000

/// Ops in server order, as a room would position them: several writers
/// creating, moving, deleting and drawing, interleaved at random, with some
/// resent and stale ops left for after a snapshot.
struct StoreHistory {
    var ops: [Op] = []

    init(seed: UInt64, length: Int = 120) {
        var random = SeededRandom(seed: seed)
        var clocks = [alice, bob, carol].map { LamportClock(replica: $0) }
        var entities: [EntityID] = []
        var strokes: [(EntityID, UInt32)] = []
        while ops.count < length {
            let writer = Int.random(in: 0..<clocks.count, using: &random)
            do {
                var transaction = try clocks[writer].beginTransaction()
                switch Int.random(in: 0..<10, using: &random) {
                case 0, 1:
                    entities.append(try transaction.create(.emoji, [.character("⭐️"), .x(Float(ops.count))]))
                case 2:
                    let stroke = try transaction.create(.stroke, [.tool(.pen)])
                    entities.append(stroke)
                    if stroke.author == clocks[writer].replica { strokes.append((stroke, 0)) }
                case 3 where !entities.isEmpty:
                    try transaction.delete(entities[Int.random(in: 0..<entities.count, using: &random)])
                case 4 where !strokes.isEmpty:
                    let index = Int.random(in: 0..<strokes.count, using: &random)
                    let (stroke, next) = strokes[index]
                    guard stroke.author == clocks[writer].replica else { break }
                    try transaction.append([sample(Float(next), 1, 0.1)], to: stroke, at: next)
                    strokes[index].1 = next + 1
                default:
                    guard let entity = entities.randomElement(using: &random) else { break }
                    try transaction.set(.x(Float.random(in: -100...100, using: &random)), of: entity)
                }
                let committed = clocks[writer].commit(transaction)
                ops += committed
                // Writers see each other now and then, so counters interleave.
                if random.chance(0.5), let highest = committed.last?.id.counter {
                    for index in clocks.indices { clocks[index].observe(highest) }
                }
            } catch {
                fatalError("fixture history: \(error)")
            }
        }
    }

    func positioned(from first: UInt64 = 1) -> [StoredOp] {
        ops.enumerated().map { index, op in
            StoredOp(
                position: first + UInt64(index), op: op, author: "user-\(op.id.replica)", receivedAt: now + Int64(index)
            )
        }
    }
}
