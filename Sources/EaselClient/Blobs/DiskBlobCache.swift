import EaselLocking
import EaselModel
import Foundation

/// Blobs kept on disk, one file per blob named by its hash, bounded in bytes:
/// past the bound, the least recently used go first, by the files'
/// modification times, so the order survives a restart. Every read is
/// checked against the hash; a file that fails is deleted. Writes go to a
/// temporary file renamed into place, so a crash never leaves half a blob
/// under a blob's name. Safe to use from any thread.
public final class DiskBlobCache: Sendable {
    public let directory: URL
    public let capacity: Int
    private let index: Locked<Index>

    private struct Index: Sendable {
        var entries: [BlobHash: (size: Int, lastUse: Date)] = [:]
        var byteCount = 0
    }

    public enum Lookup: Hashable, Sendable {
        case hit([UInt8])
        case miss
        /// The file was there but did not hash to its name; it is gone now.
        case corrupt
    }

    /// Opens (creating it if need be) the cache in `directory`, indexing the
    /// blobs an earlier run left there and deleting its unfinished writes.
    public init(directory: URL, capacity: Int) throws {
        self.directory = directory
        self.capacity = max(0, capacity)
        let files = FileManager.default
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
        var found = Index()
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        for file in try files.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) {
            guard let blob = BlobHash(hex: file.lastPathComponent), file.lastPathComponent == blob.hex else {
                if file.lastPathComponent.hasPrefix(Self.temporaryPrefix) { try? files.removeItem(at: file) }
                continue
            }
            let values = try file.resourceValues(forKeys: Set(keys))
            let size = values.fileSize ?? 0
            found.entries[blob] = (size, values.contentModificationDate ?? .distantPast)
            found.byteCount += size
        }
        index = Locked(found)
        evict()
    }

    private static let temporaryPrefix = ".partial-"

    public var byteCount: Int { index.withLock { $0.byteCount } }
    public var count: Int { index.withLock { $0.entries.count } }

    private func file(for blob: BlobHash) -> URL { directory.appendingPathComponent(blob.hex) }

    public func contains(_ blob: BlobHash) -> Bool { index.withLock { $0.entries[blob] != nil } }

    /// The blob's bytes, checked against its hash, and marked as just used.
    public func read(_ blob: BlobHash) -> Lookup {
        guard contains(blob) else { return .miss }
        let url = file(for: blob)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            forget(blob)
            return .miss
        }
        let bytes = [UInt8](data)
        guard BlobHash(digesting: bytes) == blob else {
            try? FileManager.default.removeItem(at: url)
            forget(blob)
            return .corrupt
        }
        let now = Date()
        try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: url.path)
        index.withLock { $0.entries[blob]?.lastUse = now }
        return .hit(bytes)
    }

    /// Keeps bytes already checked against their hash, evicting the least
    /// recently used files until they fit. A blob larger than the whole
    /// cache is not kept.
    public func write(_ bytes: [UInt8], for blob: BlobHash) throws {
        guard bytes.count <= capacity else { return }
        let temporary = directory.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString)
        try Data(bytes).write(to: temporary)
        let destination = file(for: blob)
        // rename(2) replaces atomically: a reader sees the old file or the new.
        guard rename(temporary.path, destination.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
        }
        index.withLock { index in
            if let old = index.entries.updateValue((bytes.count, Date()), forKey: blob) { index.byteCount -= old.size }
            index.byteCount += bytes.count
        }
        evict()
    }

    public func remove(_ blob: BlobHash) {
        try? FileManager.default.removeItem(at: file(for: blob))
        forget(blob)
    }

    private func forget(_ blob: BlobHash) {
        index.withLock { index in
            if let old = index.entries.removeValue(forKey: blob) { index.byteCount -= old.size }
        }
    }

    private func evict() {
        let victims = index.withLock { index -> [BlobHash] in
            var victims: [BlobHash] = []
            let oldestFirst = index.entries.sorted { $0.value.lastUse < $1.value.lastUse }
            for (blob, entry) in oldestFirst where index.byteCount > capacity {
                index.entries[blob] = nil
                index.byteCount -= entry.size
                victims.append(blob)
            }
            return victims
        }
        for blob in victims { try? FileManager.default.removeItem(at: file(for: blob)) }
    }
}
