@testable import EaselModel
import EaselTestSupport
import Testing

/// Arrival numbers against a plain table of every character: runs of
/// several replicas arrive in any counter order, some overlapping.
@Suite struct ArrivalsTests {
    @Test func everyCharacterIsFoundByIdAndByArrivalWhateverOrderItsRunsArriveIn() {
        for seed in propertySeeds(count: 300, label: "arrivals") {
            var random = SeededRandom(seed: seed)
            var arrivals = Arrivals()
            var table: [OpID: Int] = [:]
            var byArrival: [OpID] = []
            // Enough runs of one replica to fill several chunks, in a
            // shuffled counter order, as a snapshot of a text edited all
            // over gives them.
            var runs: [(OpID, Int)] = []
            for replica in 1...3 {
                var counter: UInt64 = 1
                for _ in 0..<Int.random(in: 50...400, using: &random) {
                    let count = Int.random(in: 1...5, using: &random)
                    runs.append((OpID(counter: counter, replica: ReplicaID(rawValue: UInt64(replica))), count))
                    counter += UInt64(count + Int.random(in: 0...2, using: &random))
                }
            }
            runs.shuffle(using: &random)
            // Some runs come back overlapping what arrived: refused whole.
            let repeated = runs.filter { _ in random.chance(0.1) }.map { run in
                (run.0.advanced(by: Int.random(in: 0..<run.1, using: &random)), Int.random(in: 1...6, using: &random))
            }
            for (first, count) in runs + repeated {
                let new = (0..<count).allSatisfy { table[first.advanced(by: $0)] == nil }
                #expect(arrivals.containsAny(first, count: count) == !new, "seed \(seed)")
                let added = arrivals.add(first, count: count)
                #expect((added != nil) == new, "seed \(seed): \(first) × \(count)")
                guard let added else { continue }
                #expect(added.arrival == byArrival.count, "seed \(seed)")
                let last = byArrival.last
                #expect(added.continuesLast == (last.map { $0.advanced(by: 1) == first } ?? false), "seed \(seed)")
                for offset in 0..<count {
                    table[first.advanced(by: offset)] = byArrival.count
                    byArrival.append(first.advanced(by: offset))
                }
            }
            #expect(arrivals.count == byArrival.count, "seed \(seed)")
            for (id, arrival) in table {
                guard let run = arrivals.run(from: id) else {
                    Issue.record("seed \(seed): \(id) not found")
                    continue
                }
                #expect(run.arrival == arrival && arrivals.id(of: arrival) == id, "seed \(seed)")
                // Every character the run claims arrived right after it.
                for offset in 1..<run.count { #expect(table[id.advanced(by: offset)] == arrival + offset, "seed \(seed)") }
                #expect(table[id.advanced(by: run.count)] != arrival + run.count, "seed \(seed): the run is as long as it goes")
            }
            #expect(arrivals.run(from: OpID(counter: 1, replica: ReplicaID(rawValue: 7))) == nil)
        }
    }
}
