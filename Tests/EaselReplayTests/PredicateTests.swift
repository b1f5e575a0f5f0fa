import EaselModel
import EaselProtocol
import EaselReplay
import EaselTestSupport
import Testing

@Suite struct PredicateTests {
    @Test func predicatesReadAsTheGrammarSays() throws {
        let id = EntityID(OpID(counter: 12, replica: ReplicaID(rawValue: 0xC1)))
        #expect(try Predicate(parsing: "missing e12@00000000000000c1") == .missing(id))
        #expect(try Predicate(parsing: "exists 12@c1") == .exists(id))
        #expect(try Predicate(parsing: "created e12@c1") == .created(id))
        #expect(try Predicate(parsing: "count > 50") == .count(.greater, 50))
        #expect(try Predicate(parsing: "known >= 3") == .known(.greaterOrEqual, 3))
        #expect(try Predicate(parsing: "e12@c1.x <= 100.5") == .field(id, name: "x", .lessOrEqual, "100.5"))
        #expect(try Predicate(parsing: "e12@c1.text = hello there") == .field(id, name: "text", .equal, "hello there"))
        #expect(
            try Predicate(parsing: "e12@c1.color != #ff0000ff") == .field(id, name: "color", .notEqual, "#ff0000ff"))
    }
}

extension PredicateTests {
    @Test func aPredicateThatDoesNotReadSaysWhatWasExpected() {
        for (text, expected) in [
            ("", "an empty predicate"),
            ("missing", "missing takes one entity ID"),
            ("count >> 3", "count takes a comparison and a number"),
            ("e1@c1.colour = #ff0000ff", "no field \"colour\""),
            ("e1@c1.x", "needs a comparison after the field"),
            ("e1@c1.x =", "needs a value after ="),
            ("exists e0@c1", "is not an entity ID"),
            ("sparkles", "cannot read \"sparkles\""),
        ] {
            #expect(throws: ReplayError.self, "\(text)") { try Predicate(parsing: text) }
            do {
                _ = try Predicate(parsing: text)
            } catch {
                #expect(error.description.contains(expected), "\(text): \(error)")
            }
        }
    }

    @Test func onlyCreationAndGrowingEntityCountsAreMonotone() throws {
        #expect(try Predicate(parsing: "created e1@c1").isMonotone)
        #expect(try Predicate(parsing: "known > 3").isMonotone)
        #expect(try Predicate(parsing: "known >= 3").isMonotone)
        for text in ["missing e1@c1", "exists e1@c1", "e1@c1.x = 3", "count > 3", "known < 3", "known = 3"] {
            #expect(try !Predicate(parsing: text).isMonotone, "\(text)")
        }
    }

    @Test func bisectionFindsWhatTheLinearScanFindsForMonotonePredicates() throws {
        for seed in propertySeeds(count: 30, label: "bisection") {
            let history = recordedSession(seed: seed)
            let states = statesByNaiveReplay(history)
            var random = SeededRandom(seed: seed)
            let threshold = Int.random(in: 0...12, using: &random)
            let predicate = Predicate.known(.greater, threshold)
            var timeline = Timeline(history, interval: Int.random(in: 1...40, using: &random))
            let found = try timeline.find(predicate)
            #expect(found.strategy == .bisection)
            let expected = states.firstIndex { predicate.holds(in: $0) }.map(UInt64.init)
            #expect(found.position == expected, "seed \(seed), known > \(threshold)")
            if states.count > 16 { #expect(found.evaluations < states.count / 2) }
        }
    }

    @Test func aPredicateThatStopsHoldingIsFoundWhereItFirstHolds() throws {
        // Created at 1, deleted at 2, restored at 3, changed at 4: a
        // bisection between 0 and 4 would see "missing" false at both ends.
        let replica = ReplicaID(rawValue: 0xC1)
        let id = EntityID(OpID(counter: 1, replica: replica))
        func op(_ counter: UInt64, _ action: Op.Action) -> LoggedOp {
            let opID = OpID(counter: counter, replica: replica)
            return LoggedOp(
                position: counter, op: Op(id: opID, transaction: TransactionID(opID), action: action), author: "ada",
                receivedAt: 0)
        }
        let history = OpHistory(
            name: "undo",
            ops: [
                op(1, .create(.emoji, [.character("🍎")])), op(2, .delete(id)), op(3, .restore(id)),
                op(4, .set(id, .x(5))),
            ])
        var timeline = Timeline(history)
        let missing = try timeline.find(.missing(id))
        #expect(missing.position == 2)
        #expect(missing.strategy == .linearScan)
        #expect(try timeline.find(.field(id, name: "x", .equal, "5")).position == 4)
        #expect(try timeline.find(.missing(id), until: 1).position == nil)
        #expect(try timeline.find(.count(.equal, 0)).position == 0)
    }
}
