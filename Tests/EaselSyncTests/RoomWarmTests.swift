import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// A page or socket at `/d/<document>` names its document before the
/// page can say hello: the room loads then, if the document was stored.
@Suite("Room: loaded when named, before the hello")
struct RoomWarmTests {
    typealias F = RoomFixtures

    /// A harness whose document holds alice's star, its room unloaded.
    func harnessWithAStoredDocument() throws -> ServerHarness {
        let harness = try ServerHarness(commitsImmediately: true)
        let (author, _) = harness.join(alice, as: "alice")
        harness.push([F.createStar()], from: author)
        harness.close(author)
        harness.advance(by: harness.server.configuration.unloadDelay)
        #expect(harness.server.openDocuments.isEmpty)
        return harness
    }

    func loads(_ transcript: Transcript) -> Int {
        transcript.outputs.filter { if case .load = $0 { true } else { false } }.count
    }

    @Test func aStoredDocumentsRoomLoadsWhenNamedAndItsFirstHelloIsWelcomedWithoutALoad() throws {
        let harness = try harnessWithAStoredDocument()
        let warmed = harness.warm()
        #expect(warmed.outputs.contains(.warm(harness.document)))
        #expect(harness.server.openDocuments == [harness.document])

        let (newcomer, joined) = harness.join(bob, as: "bob")
        #expect(loads(joined) == 0)
        #expect(try #require(joined.welcome(to: newcomer)).position == 1)
    }

    @Test func aDocumentNeverStoredIsNotCreatedByBeingNamed() throws {
        let harness = try ServerHarness()
        harness.warm()
        #expect(harness.server.openDocuments.isEmpty)
        #expect(!harness.storage.holds(harness.document))
    }

    @Test func aHelloWhileANewDocumentIsNamedIsWelcomedWithANewDocument() throws {
        let harness = try ServerHarness()
        harness.storage.defersLoads = true
        harness.warm()
        let (first, waiting) = harness.join(alice, as: "alice")
        #expect(waiting.welcome(to: first) == nil)
        #expect(loads(waiting) == 0, "the room was already loading")

        let notStored = harness.completeLoads()
        #expect(loads(notStored) == 1, "then loaded as a hello's room, which creates the document")
        let loaded = harness.completeLoads()
        #expect(try #require(loaded.welcome(to: first)).position == 0)
        #expect(harness.storage.holds(harness.document))
    }

    @Test func aRoomLoadedWhenNamedThatNobodyJoinsUnloadsAfterTheDelay() throws {
        let harness = try harnessWithAStoredDocument()
        harness.warm()
        let before = harness.advance(by: harness.server.configuration.unloadDelay - 1)
        #expect(!before.outputs.contains(.unloaded(harness.document, head: 1)))
        let after = harness.advance(by: 1)
        #expect(after.outputs.contains(.unloaded(harness.document, head: 1)))
        #expect(harness.server.openDocuments.isEmpty)
    }

    @Test func namingADocumentNeverTakesTheRoomOfAnother() throws {
        var configuration = ServerConfiguration()
        configuration.limits.rooms = 1
        let harness = try ServerHarness(configuration: configuration)
        _ = harness.join(alice, as: "alice")
        let other = try DocumentName("boards/two")
        let warmed = harness.warm(other)
        #expect(!warmed.outputs.contains(.warm(other)))
        #expect(harness.server.openDocuments == [harness.document])
    }
}
