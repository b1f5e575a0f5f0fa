import EaselClient
import EaselLocking
import EaselModel
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

    func acknowledged(_ ids: [OpID], in document: DocumentName) {
        acknowledged.withLock { $0[document, default: []].formUnion(ids) }
        acknowledgements.add(ids.count, ordering: .relaxed)
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

        var lost: Int { missingOps.count + missingBlobs.count }
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
