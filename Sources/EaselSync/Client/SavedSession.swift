import EaselModel
import EaselProtocol

/// What a client must keep across a restart so no edit is lost: its replica,
/// its counter (so new ops never reuse an ID), its unacknowledged ops, and
/// the blobs whose uploads those ops wait for (SyncClient+Blobs.swift).
public struct SavedSession: Hashable, Sendable {
    public var replica: ReplicaID
    public var counter: UInt64
    public var unacknowledged: [Op]
    /// After a restart the app uploads these again (or says they failed)
    /// before the ops that place them can go out.
    public var awaitedBlobs: [BlobHash]

    public init(replica: ReplicaID, counter: UInt64, unacknowledged: [Op], awaitedBlobs: [BlobHash] = []) {
        self.replica = replica
        self.counter = counter
        self.unacknowledged = unacknowledged
        self.awaitedBlobs = awaitedBlobs
    }

    /// How far a restored client's counter skips ahead of the saved one, in
    /// case it sent more ops after the session was saved: far more than a
    /// session makes between two saves, far less than the 2^24 a server
    /// allows beyond a document's highest counter.
    public static let counterGapAfterRestore: UInt64 = 1 << 20

    /// "EZS1" sessions, saved before blobs, hold no awaited blobs.
    private static let magicWithoutBlobs: [UInt8] = Array("EZS1".utf8)
    private static let magic: [UInt8] = Array("EZS2".utf8)

    /// Bytes to write to disk: a 4-byte tag, the replica, the counter and
    /// the number of awaited blobs (little-endian), their 32-byte digests,
    /// then the ops as a binary op batch.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.append(contentsOf: Self.magic)
        writer.uint64(replica.rawValue)
        writer.uint64(counter)
        writer.uint32(UInt32(awaitedBlobs.count))
        for blob in awaitedBlobs { writer.append(contentsOf: blob.bytes) }
        writer.append(contentsOf: OpBatchCoding.encode(unacknowledged))
        return writer.bytes
    }

    public init(encoded bytes: [UInt8]) throws(DecodeError) {
        let tag = bytes.prefix(4)
        let hasBlobs = tag.elementsEqual(Self.magic)
        guard bytes.count >= (hasBlobs ? 24 : 20), hasBlobs || tag.elementsEqual(Self.magicWithoutBlobs) else {
            throw DecodeError(.invalidValue, "not a saved Easel session")
        }
        func littleEndian(at offset: Int, count: Int) -> UInt64 {
            bytes[offset..<offset + count].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        let replica = ReplicaID(rawValue: littleEndian(at: 4, count: 8))
        let counter = littleEndian(at: 12, count: 8)
        var offset = 20
        var blobs: [BlobHash] = []
        if hasBlobs {
            let count = Int(littleEndian(at: 20, count: 4))
            offset = 24
            guard count <= (bytes.count - offset) / 32 else {
                throw DecodeError(.invalidValue, "a saved session's awaited blobs run past its end")
            }
            for _ in 0..<count {
                blobs.append(BlobHash(bytes: bytes[offset..<offset + 32]))
                offset += 32
            }
        }
        let ops = try OpBatchCoding.decode(Array(bytes[offset...]))
        guard replica.rawValue != 0, ops.allSatisfy({ $0.id.replica == replica && $0.id.counter <= counter }) else {
            throw DecodeError(.invalidValue, "a saved session's ops must be its replica's, below its counter")
        }
        self.init(replica: replica, counter: counter, unacknowledged: ops, awaitedBlobs: blobs)
    }
}
