import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Document: last-writer-wins registers")
struct DocumentTests {
    let create = op(1, alice, .create(.emoji, [.character("⭐️"), .size(40), .x(10), .y(20)]))
    var star: EntityID { create.entity }

    @Test("an entity is named by the op that created it")
    func entityIDIsTheCreatingOpID() {
        let document = Document(applying: [create])
        #expect(document[EntityID(opID(1, alice))]?.content == .emoji(character: "⭐️", size: 40))
    }

    @Test("the write with the higher OpID wins, whatever the order")
    func higherOpIDWins() {
        let early = op(5, bob, .set(star, .x(1)))
        let late = op(5, carol, .set(star, .x(2)))  // same counter: the replica decides
        for order in permutations(of: [create, early, late]) {
            #expect(Document(applying: order)[star]?.transform.x == 2)
        }
    }

    @Test("a set that arrives before its create is kept and shows once the create arrives")
    func setBeforeCreateIsKept() {
        var document = Document()
        #expect(document.apply(op(2, bob, .set(star, .x(99)))) == .appliedBeforeCreate)
        #expect(document[star] == nil)
        #expect(document.knownEntities == [star])
        document.apply(create)
        #expect(document[star]?.transform.x == 99)
        #expect(document[star]?.transform.y == 20)
    }

    @Test("delete hides an entity and a later restore brings it back with its fields")
    func deleteAndRestoreAreLastWriterWins() {
        var document = Document(applying: [create, op(2, bob, .delete(star))])
        #expect(document[star] == nil)
        #expect(document.isDeleted(star))
        #expect(document.zOrder.isEmpty)
        document.apply(op(3, alice, .restore(star)))
        #expect(document[star]?.transform.x == 10)
        // A concurrent delete with a lower stamp loses to the restore.
        #expect(document.apply(op(2, carol, .delete(star))) == .superseded)
        #expect(document[star] != nil)
    }

    @Test("applying an op twice changes nothing")
    func applyIsIdempotent() {
        let move = op(2, bob, .set(star, .x(5)))
        var document = Document(applying: [create, move])
        let before = document.canonicalEncoding
        #expect(document.apply(move) == .duplicate)
        #expect(document.apply(create) == .duplicate)
        #expect(document.canonicalEncoding == before)
    }

    @Test("negative zero is stored as zero, so replicas hold identical bits")
    func negativeZeroIsNormalised() {
        let document = Document(applying: [create, op(2, bob, .set(star, .rotation(-0.0)))])
        #expect(document[star]?.transform.rotation.bitPattern == Float(0).bitPattern)
    }

    @Test("two different writes with one OpID settle the same way in either order")
    func reusedOpIDSettlesDeterministically() {
        let first = op(2, bob, .set(star, .x(1)))
        let second = op(2, bob, .set(star, .x(2)))
        let one = Document(applying: [create, first, second])
        let other = Document(applying: [create, second, first])
        #expect(one.canonicalEncoding == other.canonicalEncoding)
    }

    @Test("a field outside the entity's kind is kept but never shown, and validation refuses it")
    func fieldOutsideKindIsRefusedByValidation() {
        let foreign = op(2, bob, .set(star, .font("Menlo")))
        var document = Document(applying: [create])
        #expect(throws: ModelError.fieldNotInKind(.font, .emoji)) { try document.validate(foreign) }
        document.apply(foreign)
        #expect(document[star]?.content == .emoji(character: "⭐️", size: 40))
    }

    @Test("validation refuses ops on entities the document never had")
    func validationRefusesUnknownEntities() {
        let document = Document()
        #expect(throws: ModelError.unknownEntity(star)) { try document.validate(op(2, bob, .set(star, .x(1)))) }
    }

    @Test("validation refuses non-finite numbers, counter 0 and foreign transactions")
    func validationRefusesMalformedOps() {
        let document = Document(applying: [create])
        #expect(throws: ModelError.nonFiniteNumber(.x)) { try document.validate(op(2, bob, .set(star, .x(.nan)))) }
        #expect(throws: ModelError.nonFiniteNumber(.scale)) {
            try document.validate(op(2, bob, .set(star, .scale(.infinity))))
        }
        #expect(throws: ModelError.zeroCounter) { try op(0, bob, .delete(star)).validate() }
        let foreign = Op(id: opID(3, bob), transaction: TransactionID(opID(2, carol)), action: .delete(star))
        #expect(throws: ModelError.foreignTransaction) { try foreign.validate() }
        let late = Op(id: opID(3, bob), transaction: TransactionID(opID(4, bob)), action: .delete(star))
        #expect(throws: ModelError.foreignTransaction) { try late.validate() }
        let longText = String(repeating: "x", count: ModelLimits.characterBytes + 1)
        #expect(throws: ModelError.self) { try op(2, bob, .set(star, .character(longText))).validate() }
    }

    @Test("every kind shows its own fields")
    func everyKindShowsItsFields() throws {
        let blob = try #require(BlobHash(hex: String(repeating: "ab", count: 32)))
        let document = Document(applying: [
            op(1, alice, .create(.shape, [.shape(.star), .width(30), .height(40), .fill(.white)])),
            op(
                2, alice,
                .create(.text, [.text("hi"), .font("Menlo"), .size(18), .textStyle(.framed), .alignment(.right)])),
            op(3, alice, .create(.stroke, [.tool(.neon), .endCap(.arrow)])),
            op(4, alice, .create(.image, [.blob(blob), .width(640), .height(480)])),
        ])
        let contents = document.entities.map(\.content)
        #expect(contents.contains(.shape(.star, width: 30, height: 40)))
        #expect(
            contents.contains(
                .text(TextContent(string: "hi", font: "Menlo", size: 18, style: .framed, alignment: .right))))
        #expect(contents.contains(.stroke(StrokeContent(tool: .neon, endCap: .arrow, samples: []))))
        #expect(contents.contains(.image(blob: blob, width: 640, height: 480)))
        #expect(blob.description == String(repeating: "ab", count: 32))
    }
}

@Suite("Lamport clock")
struct LamportClockTests {
    @Test("the next counter is one more than the highest seen or issued")
    func nextCounterFollowsEverythingSeen() throws {
        var clock = LamportClock(replica: alice)
        #expect(try clock.tick() == opID(1, alice))
        clock.observe(41)
        #expect(try clock.tick() == opID(42, alice))
        clock.observe(7)
        #expect(try clock.tick() == opID(43, alice))
    }

    @Test("an exhausted counter throws instead of wrapping")
    func exhaustedCounterThrows() {
        var clock = LamportClock(replica: alice, counter: .max)
        #expect(throws: ModelError.clockExhausted) { try clock.tick() }
    }

    @Test("op IDs order by counter, then replica")
    func opIDsOrderByCounterThenReplica() {
        #expect(opID(1, carol) < opID(2, alice))
        #expect(opID(2, alice) < opID(2, bob))
    }

    @Test("a transaction's ops share its ID, which is its first op's")
    func transactionOpsShareTheFirstOpID() throws {
        var clock = LamportClock(replica: alice)
        var transaction = try clock.beginTransaction()
        let star = try transaction.create(.emoji, [.character("⭐️")])
        try transaction.set(.x(3), of: star)
        let ops = clock.commit(transaction)
        #expect(ops.map(\.transaction) == [TransactionID(opID(1, alice)), TransactionID(opID(1, alice))])
        #expect(ops.map(\.id) == [opID(1, alice), opID(2, alice)])
        #expect(clock.counter == 2)
    }

    @Test("a transaction refuses an invalid op and keeps the ones before it")
    func transactionRefusesInvalidOps() throws {
        var clock = LamportClock(replica: alice)
        var transaction = try clock.beginTransaction()
        let star = try transaction.create(.emoji, [])
        #expect(throws: ModelError.nonFiniteNumber(.y)) { try transaction.set(.y(.nan), of: star) }
        #expect(clock.commit(transaction).count == 1)
    }
}
