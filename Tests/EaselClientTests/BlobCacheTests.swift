import EaselClient
import EaselLocking
import EaselModel
import Foundation
import Testing

/// A transport that serves blobs from a dictionary, counting downloads, and
/// failing or corrupting on demand.
final class ScriptedBlobTransport: BlobTransport {
    struct State {
        var blobs: [BlobHash: [UInt8]] = [:]
        var downloads = 0
        /// Failures to answer with before serving, in order.
        var failures: [BlobTransferError] = []
        /// Answers this many downloads with one byte flipped.
        var corruptions = 0
        /// While true, downloads wait (after their delay) until it is not:
        /// a test decides when the bytes come, whatever the machine's load.
        var holding = false
    }

    let state = Locked(State())
    /// How long each download takes.
    let delay: Duration

    init(_ blobs: [[UInt8]] = [], delay: Duration = .zero) {
        self.delay = delay
        state.withLock { state in
            for bytes in blobs { state.blobs[BlobHash(digesting: bytes)] = bytes }
        }
    }

    var downloads: Int { state.withLock { $0.downloads } }

    func download(_ blob: BlobHash, progress: @escaping @Sendable (BlobProgress) -> Void)
        async throws(BlobTransferError) -> [UInt8]
    {
        let answer = state.withLock { state -> Result<[UInt8], BlobTransferError> in
            state.downloads += 1
            if !state.failures.isEmpty { return .failure(state.failures.removeFirst()) }
            guard var bytes = state.blobs[blob] else { return .failure(BlobTransferError(.notFound, status: 404, "no")) }
            if state.corruptions > 0 {
                state.corruptions -= 1
                bytes[0] ^= 0xFF
            }
            return .success(bytes)
        }
        do {
            try await Task.sleep(for: delay)
            while state.withLock({ $0.holding }) { try await Task.sleep(for: .milliseconds(5)) }
        } catch {
            throw BlobTransferError(.cancelled, "cancelled")
        }
        let bytes = try answer.get()
        progress(BlobProgress(bytes: bytes.count / 2, total: bytes.count))
        progress(BlobProgress(bytes: bytes.count, total: bytes.count))
        return bytes
    }

    func upload(_ bytes: [UInt8], as blob: BlobHash, progress: @escaping @Sendable (BlobProgress) -> Void)
        async throws(BlobTransferError) -> Bool
    {
        state.withLock { $0.blobs.updateValue(bytes, forKey: blob) == nil }
    }
}

func seededBytes(_ count: Int, seed: UInt8) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 17) ^ seed }
}

@Suite("Blob caches")
struct BlobCacheTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easel-cache-\(UUID().uuidString)")
    let fast = RetryPolicy(attempts: 4, base: .milliseconds(1), cap: .milliseconds(5))

    @Test func theMemoryCacheEvictsTheLeastRecentlyUsedByBytes() {
        var cache = MemoryBlobCache(capacity: 250)
        let (a, b, c) = (seededBytes(100, seed: 1), seededBytes(100, seed: 2), seededBytes(100, seed: 3))
        let (ha, hb, hc) = (BlobHash(digesting: a), BlobHash(digesting: b), BlobHash(digesting: c))
        cache.insert(a, for: ha)
        cache.insert(b, for: hb)
        #expect(cache.bytes(of: ha) == a, "a is now the most recently used")
        cache.insert(c, for: hc)
        #expect(cache.contains(ha) && cache.contains(hc) && !cache.contains(hb))
        #expect(cache.byteCount == 200)
        cache.insert(seededBytes(300, seed: 4), for: BlobHash(digesting: seededBytes(300, seed: 4)))
        #expect(cache.count == 2, "a blob larger than the whole cache is not kept")
    }

    @Test func theDiskCacheSurvivesARestartAndKeepsItsLeastRecentlyUsedOrder() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let blobs = (1...3).map { seededBytes(1000, seed: UInt8($0)) }
        let hashes = blobs.map { BlobHash(digesting: $0) }
        do {
            let cache = try DiskBlobCache(directory: folder, capacity: 3000)
            for (bytes, hash) in zip(blobs, hashes) {
                try cache.write(bytes, for: hash)
                Thread.sleep(forTimeInterval: 0.02)  // distinct modification times
            }
            #expect(cache.read(hashes[0]) == .hit(blobs[0]), "the first is now the most recently used")
        }
        let reopened = try DiskBlobCache(directory: folder, capacity: 3000)
        #expect(reopened.count == 3 && reopened.byteCount == 3000)
        #expect(reopened.read(hashes[2]) == .hit(blobs[2]))
        let fourth = seededBytes(1000, seed: 4)
        try reopened.write(fourth, for: BlobHash(digesting: fourth))
        #expect(!reopened.contains(hashes[1]), "the least recently used before the restart goes first")
        #expect(reopened.contains(hashes[0]) && reopened.contains(hashes[2]))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(hashes[1].hex).path))
    }

    @Test func aCorruptedDiskFileIsDetectedAndDropped() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = seededBytes(5000, seed: 9)
        let hash = BlobHash(digesting: bytes)
        let cache = try DiskBlobCache(directory: folder, capacity: 1 << 20)
        try cache.write(bytes, for: hash)
        var damaged = bytes
        damaged[4321] ^= 1
        try Data(damaged).write(to: folder.appendingPathComponent(hash.hex))
        #expect(cache.read(hash) == .corrupt)
        #expect(!cache.contains(hash) && cache.read(hash) == .miss)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(hash.hex).path))
    }

    @Test func anUnfinishedWriteLeftByACrashIsDeletedOnOpening() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let partial = folder.appendingPathComponent(".partial-crashed")
        try Data([1, 2, 3]).write(to: partial)
        let cache = try DiskBlobCache(directory: folder, capacity: 1 << 20)
        #expect(cache.count == 0)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
    }

    @Test func concurrentRequestsForOneBlobMakeOneDownload() async throws {
        let bytes = seededBytes(20_000, seed: 5)
        let transport = ScriptedBlobTransport([bytes], delay: .milliseconds(50))
        let downloader = BlobDownloader(transport: transport, retry: fast)
        let hash = BlobHash(digesting: bytes)
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<20 { group.addTask { try await downloader.bytes(of: hash) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 20 && results.allSatisfy { $0 == bytes })
        #expect(transport.downloads == 1)
        let statistics = await downloader.statistics
        #expect(statistics.downloads == 1 && statistics.joined == 19)
        _ = try await downloader.bytes(of: hash)
        #expect(await downloader.statistics.memoryHits == 1 && transport.downloads == 1)
    }

    @Test func aCorruptedCacheFileIsFetchedAgain() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = seededBytes(8000, seed: 6)
        let hash = BlobHash(digesting: bytes)
        let transport = ScriptedBlobTransport([bytes])
        let disk = try DiskBlobCache(directory: folder, capacity: 1 << 20)
        try disk.write(bytes.reversed(), for: hash)  // wrong bytes under the name
        let downloader = BlobDownloader(transport: transport, disk: disk, retry: fast)
        #expect(try await downloader.bytes(of: hash) == bytes)
        let statistics = await downloader.statistics
        #expect(statistics.corruptFilesDropped == 1 && statistics.downloads == 1)
        #expect(disk.read(hash) == .hit(bytes), "the good bytes replace the bad file")
    }

    @Test func theDiskCacheAnswersAfterARestartWithoutADownload() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = seededBytes(8000, seed: 7)
        let hash = BlobHash(digesting: bytes)
        let transport = ScriptedBlobTransport([bytes])
        do {
            let downloader = BlobDownloader(transport: transport, disk: try DiskBlobCache(directory: folder, capacity: 1 << 20))
            _ = try await downloader.bytes(of: hash)
        }
        let restarted = BlobDownloader(transport: transport, disk: try DiskBlobCache(directory: folder, capacity: 1 << 20))
        #expect(try await restarted.bytes(of: hash) == bytes)
        #expect(transport.downloads == 1)
        #expect(await restarted.statistics.diskHits == 1)
    }

    @Test func transientFailuresAndCorruptDownloadsAreTriedAgainButANotFoundIsNot() async throws {
        let bytes = seededBytes(3000, seed: 8)
        let hash = BlobHash(digesting: bytes)
        let transport = ScriptedBlobTransport([bytes])
        transport.state.withLock {
            $0.failures = [BlobTransferError(.unavailable, status: 503, "busy")]
            $0.corruptions = 1
        }
        let downloader = BlobDownloader(transport: transport, retry: fast)
        #expect(try await downloader.bytes(of: hash) == bytes)
        #expect(transport.downloads == 3)
        #expect(await downloader.statistics.retries == 2)

        let missing = BlobHash(digesting: [1, 2, 3])
        await #expect(throws: BlobTransferError(.notFound, status: 404, "no")) {
            try await downloader.bytes(of: missing)
        }
        #expect(transport.downloads == 4, "a 404 is final")
    }

    @Test("a retry waits between half and all of base × 2^(attempt-1), capped, and the waits differ")
    func retryWaitsAreJitteredExponentialBackoff() {
        let policy = RetryPolicy(attempts: 10, base: .milliseconds(100), cap: .seconds(1))
        for attempt in 1...6 {
            let full = min(Duration.milliseconds(100 * (1 << (attempt - 1))), .seconds(1))
            let waits = (0..<200).map { _ in policy.delay(before: attempt) }
            #expect(waits.allSatisfy { $0 >= full / 2 && $0 <= full }, "attempt \(attempt)")
            #expect(Set(waits).count > 100, "jittered, so clients do not come back in step")
        }
    }

    @Test func retriesGiveUpAfterTheirAttempts() async throws {
        let transport = ScriptedBlobTransport([])
        transport.state.withLock { $0.failures = Array(repeating: BlobTransferError(.unavailable, "down"), count: 10) }
        let downloader = BlobDownloader(transport: transport, retry: fast)
        await #expect(throws: BlobTransferError(.unavailable, "down")) {
            try await downloader.bytes(of: BlobHash(digesting: [9]))
        }
        #expect(transport.downloads == 4)
    }

    @Test func aCancelledRequestStopsWaitingWhileTheOthersStillGetTheBlob() async throws {
        let bytes = seededBytes(1000, seed: 10)
        let hash = BlobHash(digesting: bytes)
        // The bytes come only when the test lets them: a request that
        // waited for them could not end before that, whatever the load.
        let transport = ScriptedBlobTransport([bytes])
        transport.state.withLock { $0.holding = true }
        let downloader = BlobDownloader(transport: transport, retry: fast)
        let patient = Task { try await downloader.bytes(of: hash) }
        let impatient = Task { try await downloader.bytes(of: hash) }
        try await Task.sleep(for: .milliseconds(50))
        impatient.cancel()
        await #expect(throws: CancellationError.self) { try await impatient.value }
        #expect(transport.state.withLock { $0.holding }, "it stopped waiting before the blob came")
        transport.state.withLock { $0.holding = false }
        #expect(try await patient.value == bytes)
        #expect(transport.downloads == 1)
    }

    @Test func whenEveryRequestIsCancelledTheDownloadStops() async throws {
        let bytes = seededBytes(1000, seed: 11)
        let hash = BlobHash(digesting: bytes)
        let transport = ScriptedBlobTransport([bytes], delay: .seconds(30))
        let downloader = BlobDownloader(transport: transport, retry: fast)
        let request = Task { try await downloader.bytes(of: hash) }
        try await Task.sleep(for: .milliseconds(50))
        request.cancel()
        await #expect(throws: CancellationError.self) { try await request.value }
        // The fetch stopped, so a new request starts a new download (within
        // 10 s: a loaded machine may take a while to run it).
        let again = Task { try await downloader.bytes(of: hash) }
        let deadline = ContinuousClock.now + .seconds(10)
        while transport.downloads < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(transport.downloads == 2)
        again.cancel()
        _ = try? await again.value
    }

    @Test func everyWaiterHearsTheDownloadsProgress() async throws {
        let bytes = seededBytes(4000, seed: 12)
        let hash = BlobHash(digesting: bytes)
        let downloader = BlobDownloader(transport: ScriptedBlobTransport([bytes], delay: .milliseconds(50)), retry: fast)
        let heard = Locked<[Int: [Int]]>([:])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for waiter in 0..<2 {
                group.addTask {
                    _ = try await downloader.bytes(of: hash) { progress in
                        heard.withLock { $0[waiter, default: []].append(progress.bytes) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(heard.withLock { $0 } == [0: [2000, 4000], 1: [2000, 4000]])
    }

    @Test func keptBytesAreShownWithoutADownloadAndWrongBytesAreRefused() async throws {
        let bytes = seededBytes(500, seed: 13)
        let transport = ScriptedBlobTransport([])
        let downloader = BlobDownloader(transport: transport, retry: fast)
        try await downloader.keep(bytes, as: BlobHash(digesting: bytes))
        #expect(try await downloader.bytes(of: BlobHash(digesting: bytes)) == bytes)
        #expect(transport.downloads == 0)
        await #expect(throws: BlobTransferError.self) { try await downloader.keep(bytes, as: BlobHash(digesting: [1])) }
    }
}
