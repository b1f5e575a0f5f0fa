import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Identities as text")
struct IdentityTextTests {
    @Test("an op ID reads as its counter in decimal, @ and its replica in sixteen lower-case hex digits, for any values")
    func anOpIDReadsAsCounterAtReplica() {
        var cases: [(UInt64, UInt64)] = [(0, 0), (9, 1), (10, 0xF), (UInt64.max, UInt64.max), (1_000_000, 0xa11ce)]
        for seed in propertySeeds(count: 2_000, label: "identity text") {
            var random = SeededRandom(seed: seed)
            // Counters of every length, not only near the top of the range.
            let counter = random.next() >> UInt64.random(in: 0...63, using: &random)
            cases.append((counter, random.next() >> UInt64.random(in: 0...63, using: &random)))
        }
        for (counter, replica) in cases {
            let id = OpID(counter: counter, replica: ReplicaID(rawValue: replica))
            let hex = String(replica, radix: 16)
            let expected = "\(String(counter))@\(String(repeating: "0", count: 16 - hex.count))\(hex)"
            #expect(id.description == expected)
            #expect(ReplicaID(rawValue: replica).description == String(expected.split(separator: "@")[1]))
            #expect(EntityID(id).description == "e" + expected)
        }
    }
}
