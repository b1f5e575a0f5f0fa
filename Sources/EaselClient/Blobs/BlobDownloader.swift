import EaselLocking
import EaselModel

/// Gets a document's images: from memory, from disk, else from the server,
/// each blob once however many ask for it at the same time.
///
/// Every download and every disk read is checked against the blob's hash:
/// a corrupt file is dropped and the blob fetched again; a download that
/// does not hash to its name counts as a transient failure and is tried
/// again, like a busy server or a broken connection, with jittered backoff.
/// A caller that is cancelled stops waiting at once; the download stops
/// when nobody waits for it any more.
public actor BlobDownloader {
    public let transport: any BlobTransport
    public let retry: RetryPolicy
    public let disk: DiskBlobCache?
    public private(set) var memory: MemoryBlobCache
    public private(set) var statistics = Statistics()

    public struct Statistics: Hashable, Sendable {
        /// Requests answered from memory, from disk, and by the server.
        public var memoryHits = 0
        public var diskHits = 0
        public var downloads = 0
        /// Requests that joined a fetch already under way.
        public var joined = 0
        /// Transient failures tried again, and disk files that failed their hash.
        public var retries = 0
        public var corruptFilesDropped = 0
    }

    private var flights: [BlobHash: Flight] = [:]
    private var nextWaiter: UInt64 = 0

    /// One fetch and who waits for it.
    private struct Flight {
        /// Tells this fetch from a later one of the same blob.
        let number: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<[UInt8], any Error>] = [:]
        let progress: ProgressFanout
    }

    /// A memory cache of `memoryBytes` (64 MiB unless said), and a disk cache
    /// if given.
    public init(
        transport: any BlobTransport, memoryBytes: Int = 64 << 20, disk: DiskBlobCache? = nil,
        retry: RetryPolicy = RetryPolicy()
    ) {
        self.transport = transport
        self.memory = MemoryBlobCache(capacity: memoryBytes)
        self.disk = disk
        self.retry = retry
    }

    /// The blob's bytes, checked against its hash. Throws `BlobTransferError`
    /// when the blob cannot be had (not found, not allowed, still failing
    /// after the retries), or `CancellationError` when the caller is cancelled.
    public func bytes(
        of blob: BlobHash, progress: (@Sendable (BlobProgress) -> Void)? = nil
    ) async throws -> [UInt8] {
        if let bytes = memory.bytes(of: blob) {
            statistics.memoryHits += 1
            return bytes
        }
        try Task.checkCancellation()
        nextWaiter += 1
        let waiter = nextWaiter
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                join(blob, waiter, continuation, progress)
            }
        } onCancel: {
            Task { await self.leave(blob, waiter) }
        }
    }

    /// Keeps bytes this client has (an image it is placing), so showing it
    /// never downloads it. Bytes that do not hash to the blob are refused.
    public func keep(_ bytes: [UInt8], as blob: BlobHash) throws(BlobTransferError) {
        guard BlobHash(digesting: bytes) == blob else {
            throw BlobTransferError(.corrupt, "the bytes do not hash to \(blob.hex)")
        }
        memory.insert(bytes, for: blob)
        try? disk?.write(bytes, for: blob)
    }

    /// Forgets the blob in memory (not on disk): the next request reads the disk.
    public func evictFromMemory(_ blob: BlobHash) {
        memory.remove(blob)
    }

    // MARK: Flights

    private func join(
        _ blob: BlobHash, _ waiter: UInt64, _ continuation: CheckedContinuation<[UInt8], any Error>,
        _ progress: (@Sendable (BlobProgress) -> Void)?
    ) {
        if flights[blob] == nil {
            let fanout = ProgressFanout()
            flights[blob] = Flight(number: waiter, progress: fanout)
            let (transport, disk, retry) = (transport, disk, retry)
            flights[blob]?.task = Task {
                let outcome = await Self.fetch(blob, transport: transport, disk: disk, retry: retry, progress: fanout)
                self.land(blob, flight: waiter, outcome)
            }
        } else {
            statistics.joined += 1
        }
        flights[blob]?.waiters[waiter] = continuation
        if let progress { flights[blob]?.progress.add(waiter, progress) }
    }

    private func leave(_ blob: BlobHash, _ waiter: UInt64) {
        guard let continuation = flights[blob]?.waiters.removeValue(forKey: waiter) else { return }
        flights[blob]?.progress.remove(waiter)
        continuation.resume(throwing: CancellationError())
        // Nobody waits any more: stop the fetch, and let the next request
        // start a fresh one rather than join one that is ending.
        if flights[blob]?.waiters.isEmpty == true, let flight = flights.removeValue(forKey: blob) {
            flight.task?.cancel()
        }
    }

    private func land(_ blob: BlobHash, flight number: UInt64, _ outcome: FetchOutcome) {
        guard flights[blob]?.number == number, let flight = flights.removeValue(forKey: blob) else { return }
        statistics.retries += outcome.retries
        statistics.corruptFilesDropped += outcome.corruptFiles
        switch outcome.result {
        case .success(let bytes):
            if outcome.fromDisk { statistics.diskHits += 1 } else { statistics.downloads += 1 }
            memory.insert(bytes, for: blob)
            for continuation in flight.waiters.values { continuation.resume(returning: bytes) }
        case .failure(let error):
            for continuation in flight.waiters.values { continuation.resume(throwing: error) }
        }
    }

    private struct FetchOutcome: Sendable {
        var result: Result<[UInt8], BlobTransferError>
        var fromDisk = false
        var retries = 0
        var corruptFiles = 0
    }

    /// Disk, then the server with retries; off the actor, so hashing ten
    /// megabytes holds up nobody else's request.
    @concurrent private static func fetch(
        _ blob: BlobHash, transport: any BlobTransport, disk: DiskBlobCache?, retry: RetryPolicy,
        progress: ProgressFanout
    ) async -> FetchOutcome {
        var outcome = FetchOutcome(result: .failure(BlobTransferError(.cancelled, "cancelled")))
        switch disk?.read(blob) {
        case .hit(let bytes)?:
            outcome.result = .success(bytes)
            outcome.fromDisk = true
            return outcome
        case .corrupt?: outcome.corruptFiles = 1
        case .miss?, nil: break
        }
        var retries = 0
        do throws(BlobTransferError) {
            let bytes = try await retry.run(retried: { _ in retries += 1 }) { () throws(BlobTransferError) -> [UInt8] in
                if Task.isCancelled { throw BlobTransferError(.cancelled, "cancelled") }
                let bytes = try await transport.download(blob) { progress.report($0) }
                guard BlobHash(digesting: bytes) == blob else {
                    throw BlobTransferError(.corrupt, "the downloaded bytes do not hash to \(blob.hex)")
                }
                return bytes
            }
            try? disk?.write(bytes, for: blob)
            outcome.result = .success(bytes)
        } catch {
            outcome.result = .failure(error)
        }
        outcome.retries = retries
        return outcome
    }
}

/// Progress of one fetch, told to everyone waiting for it, from the
/// transport's thread.
final class ProgressFanout: Sendable {
    private let listeners = Locked<[UInt64: @Sendable (BlobProgress) -> Void]>([:])

    func add(_ waiter: UInt64, _ listener: @escaping @Sendable (BlobProgress) -> Void) {
        listeners.withLock { $0[waiter] = listener }
    }

    func remove(_ waiter: UInt64) {
        _ = listeners.withLock { $0.removeValue(forKey: waiter) }
    }

    func report(_ progress: BlobProgress) {
        for listener in listeners.withLock({ Array($0.values) }) { listener(progress) }
    }
}
