import EaselClient
import EaselLocking
import EaselModel
import EaselPostgres
import EaselProtocol
import EaselStore
import Synchronization

/// What the server promised during a fault run: every op it acknowledged,
/// by document, and every blob it answered an upload of as stored. Filled
/// from the bots' client loops as the answers arrive; read after a kill,
/// when every answer that could arrive has.
final class Witness: Sendable {
    /// A set: a resumed connection may be acknowledged an op again.
    private let acknowledged = Locked<[DocumentName: Set<OpID>]>([:])
    private let blobs = Locked<Set<BlobHash>>([])
    private let acknowledgements = Atomic<Int>(0)
    /// When each document's acknowledgements arrived, in order.
    private let acknowledgedAt = Locked<[DocumentName: [ContinuousClock.Instant]]>([:])

    func acknowledged(_ ids: [OpID], in document: DocumentName) {
        let now = ContinuousClock.now
        acknowledged.withLock { $0[document, default: []].formUnion(ids) }
        acknowledgedAt.withLock { $0[document, default: []].append(now) }
        acknowledgements.add(ids.count, ordering: .relaxed)
    }

    /// The first acknowledgement in the document after `instant`, if any yet.
    func firstAcknowledgement(in document: DocumentName, after instant: ContinuousClock.Instant)
        -> ContinuousClock.Instant?
    {
        acknowledgedAt.withLock { times in
            guard let list = times[document] else { return nil }
            // Recent ones are at the end: walk back to the first after `instant`.
            var index = list.endIndex
            while index > list.startIndex, list[index - 1] > instant { index -= 1 }
            return index < list.endIndex ? list[index] : nil
        }
    }

    /// Ops acknowledged so far, an op acknowledged twice counted twice: to
    /// tell whether the server went on acknowledging during a fault.
    var acknowledgedSoFar: Int { acknowledgements.load(ordering: .relaxed) }

    func stored(_ blob: BlobHash) {
        _ = blobs.withLock { $0.insert(blob) }
    }

    struct Audit: Sendable {
        var ops = 0
        var blobs = 0
        var missingOps: [String] = []
        var missingBlobs: [String] = []
        /// Ops stored more than once (a store without a unique index on
        /// op IDs could; a lost lease's fencing failing would).
        var duplicatedOps: [String] = []

        var lost: Int { missingOps.count + missingBlobs.count + duplicatedOps.count }
    }

    /// Holds a PostgreSQL database to every promise so far: each
    /// acknowledged op stored exactly once, each stored blob whole.
    func audit(postgres url: String) throws(PostgresError) -> Audit {
        let promisedOps = acknowledged.withLock { $0 }
        let promisedBlobs = blobs.withLock { $0 }
        var audit = Audit()
        let store = try PostgresStore(url: url, migrating: false)
        for (document, ids) in promisedOps {
            for id in ids {
                audit.ops += 1
                switch try store.copies(of: id, in: document.description) {
                case 1: break
                case 0: audit.missingOps.append("\(document) \(id)")
                case let copies: audit.duplicatedOps.append("\(document) \(id): \(copies) copies")
                }
            }
        }
        for blob in promisedBlobs {
            audit.blobs += 1
            guard let bytes = try store.blobBytes(blob) else {
                audit.missingBlobs.append("\(blob): not stored")
                continue
            }
            if BlobHash(digesting: bytes) != blob { audit.missingBlobs.append("\(blob): bytes of another hash") }
        }
        return audit
    }

    /// Holds the files of a stopped server to every promise so far: each
    /// acknowledged op is in the op log, each stored blob reads back whole
    /// (its bytes hash to its name). Opens them only to read.
    func audit(database: String) throws(StoreError) -> Audit {
        let promisedOps = acknowledged.withLock { $0 }
        let promisedBlobs = blobs.withLock { $0 }
        var audit = Audit()
        let store = try OpStore(readingBackupAt: database)
        for (document, ids) in promisedOps {
            for id in ids {
                audit.ops += 1
                do {
                    if try store.op(of: document.description, id: id) == nil {
                        audit.missingOps.append("\(document) \(id)")
                    }
                } catch {
                    // A file that lost its tables (a power cut before the
                    // first sync) lost every op it was to hold.
                    audit.missingOps.append("\(document) \(id): \(error)")
                }
            }
        }
        guard !promisedBlobs.isEmpty else { return audit }
        guard let blobStore = try BlobStore.reading(besideDatabase: database) else {
            audit.missingBlobs = promisedBlobs.map { "\($0): no blob file" }
            return audit
        }
        for blob in promisedBlobs {
            audit.blobs += 1
            var bytes: [UInt8] = []
            do {
                try blobStore.readBlob(blob) { bytes += $0 }
            } catch {
                audit.missingBlobs.append("\(blob): \(error)")
                continue
            }
            if BlobHash(digesting: bytes) != blob { audit.missingBlobs.append("\(blob): bytes of another hash") }
        }
        return audit
    }
}
