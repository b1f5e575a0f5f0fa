import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// Blob before op: an image's create waits in the client until the app says
/// its bytes are stored, so no other client sees a blob the server lacks.
@Suite("Client sync engine: blob before op")
struct BlobBeforeOpTests {
    let harness = SyncClientTests()
    let photo = BlobHash(words: (0x1111, 0x2222, 0x3333, 0x4444))
    let other = BlobHash(words: (0x5555, 0x6666, 0x7777, 0x8888))

    func placeImage(_ client: inout SyncClient, _ blob: BlobHash, at point: Point = Point(x: 50, y: 50)) throws {
        try client.perform(.place(.image(blob, width: 40, height: 30), at: point), at: harness.start)
    }

    func pushedOps(_ client: inout SyncClient) -> [Op] {
        harness.pushes(harness.sent(&client)).flatMap(\.ops)
    }

    func shows(_ op: Op, _ blob: BlobHash) -> Bool {
        guard case .create(.image, let fields) = op.action else { return false }
        return fields.contains(.blob(blob))
    }

    func creates(_ ops: [Op]) -> [EntityKind] {
        ops.compactMap { if case .create(let kind, _) = $0.action { kind } else { nil } }
    }

    @Test(
        "an image's create waits until its blob is stored, and every later edit waits behind it, so the replica's ops reach the server in counter order"
    )
    func anImageCreateWaitsUntilItsBlobIsStoredAndLaterEditsBehindIt() throws {
        var client = try harness.client()
        harness.connect(&client)
        client.awaitBlob(photo)
        try placeImage(&client, photo)
        #expect(pushedOps(&client).isEmpty)
        #expect(client.editor.document.visibleCount == 1, "the place shows at once on this screen")

        try harness.placeEmoji(&client)
        #expect(pushedOps(&client).isEmpty, "the emoji came after the image")
        #expect(client.unacknowledgedCount == 2)

        client.blobStored(photo)
        #expect(client.awaitedBlobs.isEmpty)
        let released = pushedOps(&client)
        #expect(creates(released) == [.image, .emoji])
        #expect(released.map(\.id.counter) == released.map(\.id.counter).sorted())
    }

    @Test func laterOpsOnAWaitingImageWaitBehindItsCreateAndFollowItInOrder() throws {
        var client = try harness.client()
        harness.connect(&client)
        client.awaitBlob(photo)
        try placeImage(&client, photo)
        try client.send(.tap(at: Point(x: 50, y: 50)), at: harness.start)
        try client.perform(.deleteSelection, at: harness.start)
        #expect(pushedOps(&client).isEmpty)

        client.blobStored(photo)
        let ops = pushedOps(&client)
        #expect(ops.count == 2)
        #expect(creates(ops) == [.image])
        guard case .delete(let deleted)? = ops.last?.action else {
            Issue.record("expected the delete after the create, got \(ops)")
            return
        }
        #expect(deleted == ops[0].entity)
    }

    @Test("a blob stored releases the held ops up to the first that still waits for another blob, in order")
    func eachBlobReleasesTheHeldOpsBeforeTheNextWaitingOne() throws {
        var client = try harness.client()
        harness.connect(&client)
        client.awaitBlob(photo)
        client.awaitBlob(other)
        try placeImage(&client, photo)
        try placeImage(&client, other, at: Point(x: 200, y: 200))
        #expect(pushedOps(&client).isEmpty)
        client.blobStored(other)
        #expect(pushedOps(&client).isEmpty, "the photo's image, placed first, still waits")
        client.blobStored(photo)
        let released = pushedOps(&client)
        #expect(released.count == 2 && shows(released[0], photo) && shows(released[1], other))
    }

    @Test(
        "with two images uploading, the first one stored goes out at once, and an edit of it made while the second waited follows its create: every op reaches the server after the create of what it edits"
    )
    func anEditOfTheFirstImageNeverOvertakesItsCreate() throws {
        var client = try harness.client()
        harness.connect(&client)
        client.awaitBlob(photo)
        client.awaitBlob(other)
        try placeImage(&client, photo)
        try placeImage(&client, other, at: Point(x: 200, y: 200))
        try client.send(.tap(at: Point(x: 50, y: 50)), at: harness.start)
        try client.perform(.deleteSelection, at: harness.start)
        #expect(pushedOps(&client).isEmpty)
        client.blobStored(photo)
        let first = pushedOps(&client)
        #expect(first.count == 1 && shows(first[0], photo), "the photo's create waited for nothing: \(first)")
        client.blobStored(other)
        let pushed = first + pushedOps(&client)
        #expect(pushed.count == 3)
        #expect(pushed.map(\.id.counter) == pushed.map(\.id.counter).sorted(), "\(pushed.map(\.action))")
        guard case .delete(let deleted)? = pushed.last?.action else {
            Issue.record("expected the delete last, got \(pushed.map(\.action))")
            return
        }
        #expect(deleted == pushed[0].entity)
    }

    @Test("an upload that fails while the client is offline drops the image's ops, which never go out")
    func anUploadFailedOfflineDropsTheImagesOps() throws {
        var client = try harness.client()
        client.awaitBlob(photo)
        try placeImage(&client, photo)
        client.blobFailed(photo, reason: "415: not an image")
        guard case .placeFailed(_, _, let dropped)? = client.takeEvents().first else {
            Issue.record("expected a placeFailed event")
            return
        }
        #expect(creates(dropped) == [.image])
        let sent = harness.connect(&client) + harness.sent(&client)
        #expect(creates(harness.pushes(sent).flatMap(\.ops)).isEmpty, "the failed image went out")
    }

    @Test func anImageNotAwaitingAnUploadGoesOutAtOnce() throws {
        var client = try harness.client()
        harness.connect(&client)
        try placeImage(&client, photo)
        #expect(creates(pushedOps(&client)) == [.image])
    }

    @Test func aFailedUploadFailsThePlaceDropsItsOpsAndRebuildsWithoutThem() throws {
        var client = try harness.client()
        harness.connect(&client)
        client.awaitBlob(photo)
        try placeImage(&client, photo)
        try client.send(.tap(at: Point(x: 50, y: 50)), at: harness.start)
        try client.perform(.setStyle(.size(2)), at: harness.start)
        try harness.placeEmoji(&client, at: harness.start)
        #expect(pushedOps(&client).isEmpty, "the emoji waits behind the image")

        client.blobFailed(photo, reason: "415: not an image")
        let events = client.takeEvents()
        guard case .placeFailed(let blob, let reason, let dropped)? = events.first, events.count == 1 else {
            Issue.record("expected one placeFailed event, got \(events)")
            return
        }
        #expect(blob == photo && reason == "415: not an image")
        #expect(creates(dropped) == [.image])
        #expect(dropped.allSatisfy { $0.entity == dropped[0].entity })
        let outputs = client.takeOutputs()
        #expect(outputs.contains { if case .disconnect = $0 { true } else { false } })
        let emoji = outputs.flatMap { output -> [Op] in
            if case .send(.push(let push)) = output { push.ops } else { [] }
        }
        #expect(creates(emoji) == [.emoji], "released once the image's ops are dropped")
        #expect(client.unacknowledged == emoji, "the emoji is still unacknowledged, the image is gone")

        // The next connection asks for a whole snapshot; the image leaves
        // this screen, the emoji stays.
        client.connectionClosed(at: harness.start)
        client.connectionOpened(at: harness.start)
        guard case .hello(let hello)? = harness.sent(&client).first else {
            Issue.record("expected a hello")
            return
        }
        #expect(hello.since == nil)
        client.receive(
            .welcome(Welcome(epoch: SyncClientTests.epoch, position: 0, content: .snapshot([]))), at: harness.start)
        #expect(client.editor.document.visibleCount == 1)
        #expect(creates(pushedOps(&client)) == [.emoji], "the emoji's push goes out again")
        #expect(client.editor.document.entities.allSatisfy { $0.kind == .emoji })
    }

    @Test func aFailureForABlobNobodyAwaitsChangesNothing() throws {
        var client = try harness.client()
        harness.connect(&client)
        try placeImage(&client, photo)
        _ = pushedOps(&client)
        client.blobFailed(photo, reason: "gone")
        #expect(client.takeEvents().isEmpty)
        #expect(client.takeOutputs().isEmpty)
    }

    @Test func aSavedSessionKeepsTheAwaitedBlobsAndTheRestoredClientStillHoldsThePlace() throws {
        var client = try harness.client()
        client.awaitBlob(photo)
        try placeImage(&client, photo)
        let saved = try SavedSession(encoded: client.savedSession.encoded())
        #expect(saved.awaitedBlobs == [photo])

        var restored = SyncClient(
            document: client.document, user: client.user, restoring: saved, at: harness.start)
        #expect(restored.awaitedBlobs == [photo])
        harness.connect(&restored)
        #expect(pushedOps(&restored).isEmpty)
        restored.blobStored(photo)
        #expect(creates(pushedOps(&restored)) == [.image])
    }

    @Test func aSessionSavedBeforeBlobsStillRestores() throws {
        var client = try harness.client()
        try harness.placeEmoji(&client)
        var bytes = Array("EZS1".utf8)
        for word in [client.replica.rawValue, client.editor.clock.counter] {
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        bytes += OpBatchCoding.encode(client.unacknowledged)
        let saved = try SavedSession(encoded: bytes)
        #expect(saved.unacknowledged == client.unacknowledged)
        #expect(saved.awaitedBlobs.isEmpty)
    }

    @Test func aSavedSessionWhoseBlobCountRunsPastItsEndIsRefused() throws {
        var bytes = try harness.client().savedSession.encoded()
        bytes[20] = 0xFF
        #expect(throws: DecodeError.self) { try SavedSession(encoded: bytes) }
    }
}
