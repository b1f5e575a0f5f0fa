import EaselTestSupport
import PropertyBased
import Testing

@testable import EaselModel

@Suite("Z-order keys")
struct ZKeyTests {
    @Test("10,000 inserts at the front keep the order and keys stay within 16 bytes")
    func insertsAtTheFrontStayShort() throws {
        var keys = [ZKey.first]
        for index in 0..<10_000 {
            let key = try ZKey.between(nil, keys[keys.count - 1], jitter: UInt64(index))
            #expect(key < keys[keys.count - 1])
            keys.append(key)
        }
        let longest = keys.map(\.string.utf8.count).max() ?? 0
        print("z-keys: longest after 10,000 inserts at the front: \(longest) bytes")
        #expect(longest <= 16)
    }

    @Test("10,000 inserts at the back keep the order and keys stay within 16 bytes")
    func insertsAtTheBackStayShort() throws {
        var keys = [ZKey.first]
        for index in 0..<10_000 {
            let key = try ZKey.between(keys[keys.count - 1], nil, jitter: UInt64(index))
            #expect(keys[keys.count - 1] < key)
            keys.append(key)
        }
        let longest = keys.map(\.string.utf8.count).max() ?? 0
        print("z-keys: longest after 10,000 inserts at the back: \(longest) bytes")
        #expect(longest <= 16)
    }

    @Test("10,000 inserts always in the middle keep the order")
    func insertsInTheMiddleKeepTheOrder() throws {
        var keys = [try ZKey.between(nil, nil, jitter: 0)]
        keys.append(try ZKey.between(keys[0], nil, jitter: 1))
        for index in 0..<10_000 {
            let middle = keys.count / 2
            let key = try ZKey.between(keys[middle - 1], keys[middle], jitter: UInt64(index))
            keys.insert(key, at: middle)
        }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 })
        let longest = keys.map(\.string.utf8.count).max() ?? 0
        print("z-keys: longest after 10,000 inserts in the middle: \(longest) bytes")
    }

    @Test("a key generated between two keys lies strictly between them and is valid")
    func generatedKeysLieBetweenTheirBounds() async {
        await propertyCheck(count: 500, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var random = SeededRandom(seed: seed)
            var keys = [ZKey.first]
            for _ in 0..<40 {
                let gap = Int.random(in: 0...keys.count, using: &random)
                let lower = gap > 0 ? keys[gap - 1] : nil
                let upper = gap < keys.count ? keys[gap] : nil
                guard let key = try? ZKey.between(lower, upper, jitter: random.next()) else {
                    Issue.record("no key between \(String(describing: lower)) and \(String(describing: upper))")
                    return
                }
                #expect((try? ZKey(key.string)) != nil, "\(key) is not a valid key")
                if let lower { #expect(lower < key) }
                if let upper { #expect(key < upper) }
                keys.insert(key, at: gap)
            }
        }
    }

    @Test("the same bounds with different jitter give different keys")
    func jitterSeparatesConcurrentInserts() throws {
        let lower = key("a1")
        let upper = key("a2")
        let generated = try Set((0..<100).map { try ZKey.between(lower, upper, jitter: UInt64($0)) })
        #expect(generated.count > 90)
    }

    @Test("between refuses bounds that are not in order")
    func betweenRefusesUnorderedBounds() {
        #expect(throws: ModelError.self) { try ZKey.between(key("a2"), key("a1"), jitter: 0) }
        #expect(throws: ModelError.self) { try ZKey.between(key("a1"), key("a1"), jitter: 0) }
    }

    @Test(
        "malformed and over-long keys are refused",
        arguments: [
            "", "a", "0a", "b1", "a1#", "a10", "A00000000000000000000000000", "a é",
            String(repeating: "z", count: ModelLimits.zKeyBytes + 1),
        ])
    func malformedKeysAreRefused(_ string: String) {
        #expect(throws: ModelError.self) { try ZKey(string) }
    }

    @Test(
        "well-formed keys are accepted",
        arguments: ["a0", "a1V", "Zz", "b00", "A00000000000000000000000000V", "zzzzzzzzzzzzzzzzzzzzzzzzzzzz"])
    func wellFormedKeysAreAccepted(_ string: String) throws {
        _ = try ZKey(string)
    }

    @Test("concurrent inserts at one place order the same way on every replica")
    func concurrentInsertsOrderTheSameEverywhere() throws {
        let bottom = op(1, alice, .create(.emoji, [.zKey(key("a0"))]))
        let top = op(2, alice, .create(.emoji, [.zKey(key("a1"))]))
        let base = Document(applying: [bottom, top])
        // Three replicas each put an entity between bottom and top at once.
        let inserts = try [alice, bob, carol].enumerated().map { index, replica in
            let placement = try base.zPlacement(above: bottom.entity, jitter: UInt64(index % 2))
            return op(3, replica, .create(.shape, [.zKey(placement.key)]))
        }
        var orders: Set<[EntityID]> = []
        for permutation in permutations(of: inserts) {
            orders.insert(Document(applying: [bottom, top] + permutation).zOrder)
        }
        #expect(orders.count == 1)
        let order = try #require(orders.first)
        #expect(order.first == bottom.entity)
        #expect(order.last == top.entity)
    }

    @Test("inserting between two neighbours that share a key re-keys one of them")
    func insertingBetweenEqualKeysRekeysANeighbour() throws {
        let shared = key("a1")
        let lower = op(1, alice, .create(.emoji, [.zKey(shared)]))
        let upper = op(1, bob, .create(.emoji, [.zKey(shared)]))
        let above = op(2, alice, .create(.emoji, [.zKey(key("a2"))]))
        var document = Document(applying: [lower, upper, above])
        #expect(document.zOrder == [lower.entity, upper.entity, above.entity])

        let placement = try document.zPlacement(above: lower.entity, jitter: 7)
        #expect(placement.rekeys.map(\.entity) == [upper.entity])
        var counter: UInt64 = 3
        for rekey in placement.rekeys {
            document.apply(op(counter, carol, .set(rekey.entity, .zKey(rekey.key))))
            counter += 1
        }
        let inserted = op(counter, carol, .create(.text, [.zKey(placement.key)]))
        document.apply(inserted)
        #expect(document.zOrder == [lower.entity, inserted.entity, upper.entity, above.entity])
    }
}

/// Every ordering of `elements` (Heap's algorithm); keep inputs small.
func permutations<T>(of elements: [T]) -> [[T]] {
    var result: [[T]] = []
    var items = elements
    func generate(_ count: Int) {
        if count <= 1 {
            result.append(items)
            return
        }
        for index in 0..<count {
            generate(count - 1)
            items.swapAt(count % 2 == 0 ? index : 0, count - 1)
        }
    }
    generate(items.count)
    return result
}

@Suite("Z-order placement")
struct ZPlacementTests {
    @Test("keys that would pass the length limit are avoided by re-keying the entities above")
    func longKeysAreAvoidedByRekeying() throws {
        var document = Document(applying: [
            op(1, alice, .create(.emoji, [.zKey(key("a0"))])),
            op(2, alice, .create(.emoji, [.zKey(key("a1"))])),
        ])
        let bottom = EntityID(opID(1, alice))
        var counter: UInt64 = 3
        var spreads = 0
        for _ in 0..<2_000 {
            let placement = try document.zPlacement(above: bottom, jitter: counter)
            if placement.rekeys.count > 1 { spreads += 1 }
            for rekey in placement.rekeys {
                let set = op(counter, bob, .set(rekey.entity, .zKey(rekey.key)))
                try document.validate(set)
                document.apply(set)
                counter += 1
            }
            let create = op(counter, bob, .create(.emoji, [.zKey(placement.key)]))
            try document.validate(create)
            let before = document.zOrder
            document.apply(create)
            #expect(document.zOrder == [before[0], create.entity] + before.dropFirst())
            counter += 1
        }
        print("z-placement: 2,000 inserts into one gap needed \(spreads) spreads")
        #expect(spreads > 0)
    }
}
