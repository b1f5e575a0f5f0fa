import Crypto
import EaselClient
import EaselClientHTTP
import EaselClientLWS
import EaselLocking
import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Foundation
import Testing

/// Counts what goes through a real transport.
final class CountingBlobTransport: BlobTransport {
    let inner: any BlobTransport
    let counts = Locked((downloads: 0, uploads: 0))

    init(_ inner: any BlobTransport) { self.inner = inner }

    var downloads: Int { counts.withLock { $0.downloads } }

    func download(_ blob: BlobHash, progress: @escaping @Sendable (BlobProgress) -> Void)
        async throws(BlobTransferError) -> [UInt8]
    {
        counts.withLock { $0.downloads += 1 }
        return try await inner.download(blob, progress: progress)
    }

    func upload(_ bytes: [UInt8], as blob: BlobHash, progress: @escaping @Sendable (BlobProgress) -> Void)
        async throws(BlobTransferError) -> Bool
    {
        counts.withLock { $0.uploads += 1 }
        return try await inner.upload(bytes, as: blob, progress: progress)
    }
}

/// EaselClient's blob downloader and caches, and the blob-before-op place,
/// over AsyncHTTPClient against a real `easel serve` on its own SQLite file.
@Suite("Blob downloader and place against a real server", .serialized)
final class BlobClientTests {
    static let secret = "a secret for the blob client tests, long enough"
    static let origin = Timestamp(milliseconds: 0)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easel-blobclient-\(UUID().uuidString)")
    let fast = RetryPolicy(attempts: 3, base: .milliseconds(10), cap: .milliseconds(50))

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The folder goes with the test: its files (blobs of up to 10 MiB
    /// each, databases) would otherwise fill the disk run after run.
    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    func png(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    func server(secret: Bool = false) throws -> ServerProcess {
        try ServerProcess(
            database: folder.appendingPathComponent("easel.db").path,
            environment: secret ? ["EASEL_SECRET": Self.secret] : [:])
    }

    func http(_ server: ServerProcess, document: String = "pics/shared", token: String? = nil) -> HTTPBlobTransport {
        HTTPBlobTransport(server: "http://127.0.0.1:\(server.port)", document: document, token: token)
    }

    /// One upload, tried again, as every client does, when the server
    /// answered busy or dropped the connection (the full suite loads this
    /// 2-core machine enough for that to happen).
    func upload(_ bytes: [UInt8], to transport: HTTPBlobTransport) async throws -> Bool {
        let hash = BlobHash(digesting: bytes)
        for attempt in 1..<3 {
            do {
                return try await transport.upload(bytes, as: hash) { _ in }
            } catch {
                guard error.isTransient else { throw error }
                print("upload attempt \(attempt) failed (\(error)); trying again")
            }
        }
        return try await transport.upload(bytes, as: hash) { _ in }
    }

    @Test func aBlobUploadedThroughTheTransportDownloadsByteForByteAndAgainAnswersAlreadyStored() async throws {
        let server = try server()
        defer { server.kill() }
        let transport = http(server)
        let bytes = png(300_000, seed: 1)
        _ = try await upload(bytes, to: transport)
        #expect(try await transport.upload(bytes, as: BlobHash(digesting: bytes)) { _ in } == false, "already stored")
        let downloader = BlobDownloader(transport: transport, retry: fast)
        #expect(try await downloader.bytes(of: BlobHash(digesting: bytes)) == bytes)
        let missing = await #expect(throws: BlobTransferError.self) {
            try await downloader.bytes(of: BlobHash(digesting: [1, 2, 3]))
        }
        #expect(missing?.kind == .notFound && missing?.status == 404)
    }

    @Test func concurrentRequestsForOneBlobMakeOneDownloadFromTheServer() async throws {
        let server = try server()
        defer { server.kill() }
        let bytes = png(2_000_000, seed: 2)
        _ = try await upload(bytes, to: http(server))
        let counting = CountingBlobTransport(http(server))
        let downloader = BlobDownloader(transport: counting, retry: fast)
        let hash = BlobHash(digesting: bytes)
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<16 { group.addTask { try await downloader.bytes(of: hash) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 16 && results.allSatisfy { $0 == bytes })
        #expect(counting.downloads == 1)
    }

    @Test func theMemoryCacheEvictsTheLeastRecentlyUsedBlobByBytesAndFetchesItAgain() async throws {
        let server = try server()
        defer { server.kill() }
        let blobs = (1...3).map { png(100_000, seed: 10 + UInt64($0)) }
        for bytes in blobs { _ = try await upload(bytes, to: http(server)) }
        let counting = CountingBlobTransport(http(server))
        let downloader = BlobDownloader(transport: counting, memoryBytes: 250_000, retry: fast)
        let (a, b, c) = (BlobHash(digesting: blobs[0]), BlobHash(digesting: blobs[1]), BlobHash(digesting: blobs[2]))
        _ = try await downloader.bytes(of: a)
        _ = try await downloader.bytes(of: b)
        _ = try await downloader.bytes(of: a)
        _ = try await downloader.bytes(of: c)
        #expect(counting.downloads == 3)
        let memory = await downloader.memory
        #expect(memory.contains(a) && !memory.contains(b))
        #expect(try await downloader.bytes(of: b) == blobs[1])
        #expect(counting.downloads == 4, "b was evicted, so it is downloaded again")
        #expect(await downloader.memory.byteCount <= 250_000)
    }

    @Test func theDiskCacheServesAfterARestartEvenWithTheServerGone() async throws {
        let bytes = png(500_000, seed: 3)
        let hash = BlobHash(digesting: bytes)
        let cacheFolder = folder.appendingPathComponent("cache")
        do {
            let server = try server()
            defer { server.kill() }
            _ = try await upload(bytes, to: http(server))
            let downloader = BlobDownloader(
                transport: http(server), disk: try DiskBlobCache(directory: cacheFolder, capacity: 8 << 20), retry: fast
            )
            _ = try await downloader.bytes(of: hash)
        }
        let unreachable = HTTPBlobTransport(server: "http://127.0.0.1:9", document: "pics/shared")
        let restarted = BlobDownloader(
            transport: unreachable, disk: try DiskBlobCache(directory: cacheFolder, capacity: 8 << 20), retry: fast)
        #expect(try await restarted.bytes(of: hash) == bytes)
        #expect(await restarted.statistics.diskHits == 1)
    }

    @Test func aCorruptedDiskCacheFileIsDetectedAndFetchedAgainFromTheServer() async throws {
        let server = try server()
        defer { server.kill() }
        let bytes = png(400_000, seed: 4)
        let hash = BlobHash(digesting: bytes)
        _ = try await upload(bytes, to: http(server))
        let cacheFolder = folder.appendingPathComponent("cache")
        let counting = CountingBlobTransport(http(server))
        let downloader = BlobDownloader(
            transport: counting, disk: try DiskBlobCache(directory: cacheFolder, capacity: 8 << 20), retry: fast)
        _ = try await downloader.bytes(of: hash)
        var damaged = bytes
        damaged[200_000] ^= 0x40
        try Data(damaged).write(to: cacheFolder.appendingPathComponent(hash.hex))
        await downloader.evictFromMemory(hash)
        #expect(try await downloader.bytes(of: hash) == bytes)
        #expect(counting.downloads == 2)
        #expect(await downloader.statistics.corruptFilesDropped == 1)
    }

    @Test func withASecretTheTransportSendsItsTokenAndAViewTokenDownloadsButCannotUpload() async throws {
        let server = try server(secret: true)
        defer { server.kill() }
        let authority = try TestTokens(secret: Self.secret)
        let editor = http(server, token: try authority.token(user: "ada", document: "pics/shared", role: "edit"))
        let viewer = http(server, token: try authority.token(user: "bob", document: "pics/shared", role: "view"))
        let bytes = png(1000, seed: 5)
        await #expect(throws: BlobTransferError.self) { try await upload(bytes, to: http(server)) }
        do {
            _ = try await upload(bytes, to: viewer)
            Issue.record("a view token uploaded")
        } catch let error as BlobTransferError {
            #expect(error.kind == .notAllowed && error.status == 403)
        }
        #expect(try await upload(bytes, to: editor) == true)
        #expect(try await viewer.download(BlobHash(digesting: bytes)) { _ in } == bytes)
    }

    // MARK: Blob before op, end to end

    func session(_ name: String, replica: UInt64, server: ServerProcess, loop: ClientLoop) throws -> DocumentSession {
        let engine = SyncClient(
            document: try DocumentName("pics/shared"),
            user: UserInfo(name: name, initials: String(name.prefix(1)), color: .black),
            replica: ReplicaID(rawValue: replica), at: Self.origin)
        guard let address = WebSocketAddress("ws://127.0.0.1:\(server.port)") else {
            throw ServerProcessError("bad address")
        }
        let session = DocumentSession(engine: engine) { loop.transport(to: address, subprotocol: $0.subprotocol) }
        session.start()
        return session
    }

    func imageBlobs(in session: DocumentSession) -> [BlobHash] {
        session.read(imageBlobs(in:))
    }

    func imageBlobs(in engine: SyncClient) -> [BlobHash] {
        engine.editor.document.entities.compactMap { entity in
            guard case .image(let blob, _, _) = entity.content else { return nil }
            return blob
        }
    }

    @Test func aPlacedImageReachesTheOtherClientOnlyWithItsBytesStoredAndTheyDownloadIt() async throws {
        let server = try server()
        defer { server.kill() }
        let loop = try ClientLoop()
        let (ada, bob) = (
            try session("ada", replica: 0xA, server: server, loop: loop),
            try session("bob", replica: 0xB, server: server, loop: loop)
        )
        defer {
            ada.stop()
            bob.stop()
        }
        #expect(ada.wait(timeout: .seconds(10)) { $0.connectionState == .connected })
        #expect(bob.wait(timeout: .seconds(10)) { $0.connectionState == .connected })

        let bytes = png(3_000_000, seed: 6)
        let stored = CountingBlobTransport(http(server))
        let heard = Locked(0)
        let blob = try await ada.placeImage(
            bytes, width: 300, height: 200, at: Point(x: 100, y: 100), transport: stored
        ) { progress in heard.withLock { $0 = max($0, progress.bytes) } }
        #expect(heard.withLock { $0 } == bytes.count, "the upload's progress reached the whole size")
        #expect(bob.wait(timeout: .seconds(10)) { imageBlobs(in: $0) == [blob] })
        let downloader = BlobDownloader(transport: http(server), retry: fast)
        #expect(try await downloader.bytes(of: blob) == bytes)
        #expect(ada.wait(timeout: .seconds(10)) { $0.unacknowledgedCount == 0 })
    }

    @Test(
        "while the upload runs the other client sees neither the image nor the edits made after it; once stored, both arrive"
    )
    func whileTheUploadRunsTheOtherClientSeesNothingMadeAfterTheImage() async throws {
        let server = try server()
        defer { server.kill() }
        let loop = try ClientLoop()
        let (ada, bob) = (
            try session("ada", replica: 0xA, server: server, loop: loop),
            try session("bob", replica: 0xB, server: server, loop: loop)
        )
        defer {
            ada.stop()
            bob.stop()
        }
        #expect(ada.wait(timeout: .seconds(10)) { $0.connectionState == .connected })
        let bytes = png(1000, seed: 7)
        let blob = BlobHash(digesting: bytes)
        try ada.edit { engine in
            engine.awaitBlob(blob)
            try engine.perform(.place(.image(blob, width: 10, height: 10), at: Point(x: 10, y: 10)), at: Self.origin)
            try engine.perform(.place(.emoji("🐝", size: 40), at: Point(x: 90, y: 90)), at: Self.origin)
        }
        #expect(bob.wait(timeout: .seconds(10)) { $0.connectionState == .connected })
        try await Task.sleep(for: .milliseconds(300))
        #expect(imageBlobs(in: bob).isEmpty, "no reference to bytes the server lacks")
        #expect(bob.read { $0.editor.document.visibleCount == 0 }, "the emoji waits behind the image")
        _ = try await upload(bytes, to: http(server))
        ada.edit { $0.blobStored(blob) }
        #expect(
            bob.wait(timeout: .seconds(10)) { imageBlobs(in: $0) == [blob] && $0.editor.document.visibleCount == 2 })
    }

    @Test func anUploadTheServerRefusesFailsThePlaceWithTheServersReasonAndNobodySeesIt() async throws {
        let server = try server()
        defer { server.kill() }
        let loop = try ClientLoop()
        let failures = Locked<[String]>([])
        let engine = SyncClient(
            document: try DocumentName("pics/shared"), user: UserInfo(name: "ada", initials: "A", color: .black),
            replica: ReplicaID(rawValue: 0xA), at: Self.origin)
        guard let address = WebSocketAddress("ws://127.0.0.1:\(server.port)") else {
            throw ServerProcessError("bad address")
        }
        let ada = DocumentSession(
            engine: engine,
            onEvents: { events in
                for case .placeFailed(_, let reason, _) in events { failures.withLock { $0.append(reason) } }
            }
        ) { loop.transport(to: address, subprotocol: $0.subprotocol) }
        ada.start()
        let bob = try session("bob", replica: 0xB, server: server, loop: loop)
        defer {
            ada.stop()
            bob.stop()
        }
        #expect(ada.wait(timeout: .seconds(10)) { $0.connectionState == .connected })
        let text = Array("just some text, not an image".utf8)
        await #expect(throws: BlobTransferError.self) {
            try await ada.placeImage(
                text, width: 10, height: 10, at: Point(x: 5, y: 5), transport: http(server), retry: fast)
        }
        #expect(failures.withLock { $0 }.first?.hasPrefix("415") == true)
        #expect(
            ada.wait(timeout: .seconds(10)) { $0.connectionState == .connected && $0.editor.document.visibleCount == 0 }
        )
        try ada.edit { try $0.perform(.place(.emoji("🐝", size: 40), at: Point(x: 90, y: 90)), at: Self.origin) }
        #expect(bob.wait(timeout: .seconds(10)) { $0.editor.document.visibleCount == 1 })
        #expect(imageBlobs(in: bob).isEmpty)
    }
}

/// Tokens signed with a test's secret, as `easel token` makes them.
struct TestTokens {
    let secret: String

    init(secret: String) throws { self.secret = secret }

    func token(user: String, document: String, role: String) throws -> String {
        let (status, printed, errors) = try runEasel([
            "token", "--secret", secret, "--user", user, "--doc", document, "--role", role, "--ttl", "1h",
        ])
        guard status == 0 else { throw ServerProcessError("easel token failed: \(errors)") }
        return printed.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
