import EaselModel

/// Blobs kept in memory, bounded in bytes: past the bound, the least
/// recently used go first. It holds only bytes already checked against
/// their hash. Eviction scans the entries: a cache of images holds
/// hundreds, not millions.
public struct MemoryBlobCache: Sendable {
    public let capacity: Int
    public private(set) var byteCount = 0
    private var entries: [BlobHash: Entry] = [:]
    private var clock: UInt64 = 0

    private struct Entry: Sendable {
        var bytes: [UInt8]
        var lastUse: UInt64
    }

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    public var count: Int { entries.count }

    public func contains(_ blob: BlobHash) -> Bool { entries[blob] != nil }

    /// The bytes, marked as just used.
    public mutating func bytes(of blob: BlobHash) -> [UInt8]? {
        clock += 1
        entries[blob]?.lastUse = clock
        return entries[blob]?.bytes
    }

    /// Keeps the bytes, evicting the least recently used until they fit.
    /// A blob larger than the whole cache is not kept.
    public mutating func insert(_ bytes: [UInt8], for blob: BlobHash) {
        guard bytes.count <= capacity else { return }
        clock += 1
        if let old = entries.updateValue(Entry(bytes: bytes, lastUse: clock), forKey: blob) {
            byteCount -= old.bytes.count
        }
        byteCount += bytes.count
        while byteCount > capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            byteCount -= oldest.value.bytes.count
            entries[oldest.key] = nil
        }
    }

    public mutating func remove(_ blob: BlobHash) {
        if let old = entries.removeValue(forKey: blob) { byteCount -= old.bytes.count }
    }
}
