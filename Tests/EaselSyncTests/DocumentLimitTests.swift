import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// The per-document limits: what an edit token can make one document hold
/// (`ServerLimits.entitiesPerDocument`, `.contentBytesPerDocument`).
@Suite struct DocumentLimitTests {
    typealias F = RoomFixtures

    private func harness(_ change: (inout ServerLimits) -> Void) throws -> ServerHarness {
        var configuration = ServerConfiguration()
        change(&configuration.limits)
        configuration.unloadDelay = 1_000
        return try ServerHarness(configuration: configuration, commitsImmediately: true)
    }

    private func create(_ counter: UInt64, _ character: String = "🌲") -> Op {
        op(counter, alice, .create(.emoji, [.character(character)]))
    }

    private func note(_ counter: UInt64, _ text: String) -> Op {
        op(counter, alice, .create(.text, [.text(text)]))
    }

    @Test func aPushThatWouldCreateMoreEntitiesThanTheLimitIsRefusedWholeWith213AndStoresNothing() throws {
        let harness = try harness { $0.entitiesPerDocument = 3 }
        let (connection, _) = harness.join(alice, as: "alice")
        #expect(harness.push([create(1), create(2)], batch: 1, from: connection).errors(to: connection).isEmpty)
        let refused = harness.push([create(3), create(4)], batch: 2, from: connection)
        let error = try #require(refused.errors(to: connection).first)
        #expect(error.code == .documentFull)
        #expect(error.batch == 2)
        #expect(!error.fatal)
        #expect(error.message.contains("3"))
        #expect(refused.appended.isEmpty)
        #expect(refused.closes(of: connection).isEmpty)
        // The one entity left still fits.
        let fits = harness.push([create(5)], batch: 3, from: connection)
        #expect(fits.errors(to: connection).isEmpty)
        #expect(fits.appended.map(\.op.id) == [opID(5, alice)])
    }

    @Test func deletedEntitiesCountAgainstTheLimitBecauseTheyCanBeRestored() throws {
        let harness = try harness { $0.entitiesPerDocument = 2 }
        let (connection, _) = harness.join(alice, as: "alice")
        harness.push([create(1), create(2)], batch: 1, from: connection)
        harness.push([op(3, alice, .delete(EntityID(opID(1, alice))))], batch: 2, from: connection)
        let refused = harness.push([create(4)], batch: 3, from: connection)
        #expect(refused.errors(to: connection).map(\.code) == [.documentFull])
    }

    @Test func editsThatAddNothingAreAcceptedInAFullDocument() throws {
        let harness = try harness { $0.entitiesPerDocument = 1 }
        let (connection, _) = harness.join(alice, as: "alice")
        harness.push([create(1)], batch: 1, from: connection)
        let star = EntityID(opID(1, alice))
        let edits = harness.push(
            [
                op(2, alice, .set(star, .x(40))), op(3, alice, .set(star, .scale(2))), op(4, alice, .delete(star)),
                op(5, alice, .restore(star)),
            ],
            batch: 2, from: connection)
        #expect(edits.errors(to: connection).isEmpty)
        #expect(edits.appended.count == 4)
    }

    @Test func aPushThatWouldPassTheContentBytesIsRefusedWith213WhileMovesStillPass() throws {
        // Counted from the ops: 24 an entity plus its text's UTF-8.
        let harness = try harness { $0.contentBytesPerDocument = 1024 }
        let (connection, _) = harness.join(alice, as: "alice")
        let long = String(repeating: "x", count: 500)
        #expect(harness.push([note(1, long)], batch: 1, from: connection).errors(to: connection).isEmpty)
        // 524 + 524 > 1024.
        let refused = harness.push([note(2000, long)], batch: 2, from: connection)
        #expect(refused.errors(to: connection).map(\.code) == [.documentFull])
        #expect(refused.appended.isEmpty)
        let moved = harness.push([op(2001, alice, .set(EntityID(opID(1, alice)), .x(9)))], batch: 3, from: connection)
        #expect(moved.errors(to: connection).isEmpty)
        // Writing a field adds nothing: its size is bounded, and the
        // entity limit bounds the rest.
        let rewritten = harness.push(
            [op(3000, alice, .set(EntityID(opID(1, alice)), .text(String(repeating: "y", count: 900))))], batch: 5,
            from: connection)
        #expect(rewritten.errors(to: connection).isEmpty)
        // Samples count too: a stroke of 12-byte samples up to the limit.
        let stroke = op(2002, alice, .create(.stroke, [.tool(.pen)]))
        let samples = (0..<40).map { StrokeSample(x: Float($0), y: 0, time: 0) }
        let appended = harness.push(
            [stroke, op(2003, alice, .append(EntityID(opID(2002, alice)), start: 0, samples: samples))], batch: 4,
            from: connection)
        #expect(appended.errors(to: connection).map(\.code) == [.documentFull], "524 + 28 + 480 > 1024")
    }

    @Test func aReloadedDocumentCountsWhatItHeldBefore() throws {
        let harness = try harness { $0.entitiesPerDocument = 3 }
        let (connection, _) = harness.join(alice, as: "alice")
        harness.push([create(1), create(2), create(3)], batch: 1, from: connection)
        harness.close(connection)
        let unloaded = harness.advance(by: 2_000)
        #expect(unloaded.outputs.contains { if case .unloaded = $0 { true } else { false } })
        let (again, _) = harness.join(alice, as: "alice")
        let refused = harness.push([create(10)], batch: 2, from: again)
        #expect(refused.errors(to: again).map(\.code) == [.documentFull])
    }

    /// The limit is checked before the ops are vetted (a full document's
    /// grower is refused without the cost of vetting its pushes), so 213
    /// is the answer even when an op of the push breaks another rule.
    @Test func aPushPastTheLimitIsRefusedWith213BeforeItsOpsAreVetted() throws {
        let harness = try harness { $0.entitiesPerDocument = 2 }
        let (connection, _) = harness.join(alice, as: "alice")
        harness.push([create(1), create(2)], batch: 1, from: connection)
        let unknown = EntityID(opID(99, bob))
        let refused = harness.push([create(3), op(4, alice, .set(unknown, .x(1)))], batch: 2, from: connection)
        #expect(refused.errors(to: connection).map(\.code) == [.documentFull])
        let withinTheLimit = harness.push([op(5, alice, .set(unknown, .x(1)))], batch: 3, from: connection)
        #expect(withinTheLimit.errors(to: connection).map(\.code) == [.unknownEntity])
    }

    @Test func aCreateRepeatedWithinOnePushCountsOnceAgainstTheLimit() throws {
        let harness = try harness { $0.entitiesPerDocument = 2 }
        let (connection, _) = harness.join(alice, as: "alice")
        harness.push([create(1)], batch: 1, from: connection)
        let repeated = harness.push([create(2), create(2)], batch: 2, from: connection)
        #expect(repeated.errors(to: connection).isEmpty)
        #expect(repeated.appended.map(\.op.id) == [opID(2, alice)])
        #expect(
            harness.push([create(3)], batch: 3, from: connection).errors(to: connection).map(\.code) == [.documentFull])
    }

    @Test func resendsOfAcceptedCreatesAreNotCountedTwice() throws {
        let harness = try harness { $0.entitiesPerDocument = 2 }
        let (connection, _) = harness.join(alice, as: "alice")
        harness.push([create(1), create(2)], batch: 1, from: connection)
        let resent = harness.push([create(1), create(2)], batch: 2, from: connection)
        #expect(resent.errors(to: connection).isEmpty)
    }
}
