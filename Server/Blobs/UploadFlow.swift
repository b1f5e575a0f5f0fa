import EaselProtocol
import EaselStore

/// An upload's bytes on their way to the blob port: cut into chunks of
/// `BlobStore.chunkLimit`, the first bytes kept for sniffing the type, and
/// reading paused while the port has `chunksAhead` chunks queued, so memory
/// stays bounded however many upload at once.
struct UploadFlow {
    /// Chunks of one upload the port may have queued before reading pauses.
    static let chunksAhead = 4

    private(set) var received: Int64 = 0
    private var pending: [UInt8] = []
    /// The first bytes, for sniffing the type.
    private var head: [UInt8] = []
    private var nextSequence = 0
    /// Chunks handed to the port and not yet written.
    private var inFlight = 0
    private var paused = false
    /// Stored, refused or failed: nothing more to do.
    var ended = false

    /// Takes body bytes: the chunks they fill go to the port, and reading
    /// pauses when the port is behind. Nil when they pass `limit` in all.
    mutating func take(_ bytes: some Collection<UInt8>, limit: Int64) -> [BlobExchange.Action]? {
        received += Int64(bytes.count)
        guard received <= limit else { return nil }
        if head.count < BlobType.sniffLength {
            head += bytes.prefix(BlobType.sniffLength - head.count)
        }
        pending.append(contentsOf: bytes)
        var actions: [BlobExchange.Action] = []
        while pending.count >= BlobStore.chunkLimit {
            actions.append(chunk(Array(pending.prefix(BlobStore.chunkLimit))))
            pending.removeFirst(BlobStore.chunkLimit)
        }
        if inFlight >= Self.chunksAhead, !paused {
            paused = true
            actions.append(.pauseReading)
        }
        return actions
    }

    /// The body ended: the last chunk, and the type its first bytes show
    /// (nil: not an image this server takes). Nothing more is taken after.
    mutating func end() -> (actions: [BlobExchange.Action], type: BlobType?) {
        var actions: [BlobExchange.Action] = []
        if !pending.isEmpty {
            actions.append(chunk(pending))
            pending = []
        }
        ended = true
        return (actions, BlobType(sniffing: head))
    }

    /// The port wrote a chunk; true when reading may resume.
    mutating func chunkWritten() -> Bool {
        inFlight -= 1
        guard paused, inFlight < Self.chunksAhead / 2 else { return false }
        paused = false
        return true
    }

    private mutating func chunk(_ bytes: [UInt8]) -> BlobExchange.Action {
        defer {
            nextSequence += 1
            inFlight += 1
        }
        return .store(.append(sequence: nextSequence, bytes: bytes))
    }
}
