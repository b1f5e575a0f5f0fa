import EaselModel
import EaselProtocol

/// What a client must keep across a restart so no edit is lost: its replica,
/// its counter (so new ops never reuse an ID) and its unacknowledged ops.
public struct SavedSession: Hashable, Sendable {
    public var replica: ReplicaID
    public var counter: UInt64
    public var unacknowledged: [Op]

    public init(replica: ReplicaID, counter: UInt64, unacknowledged: [Op]) {
        self.replica = replica
        self.counter = counter
        self.unacknowledged = unacknowledged
    }

    /// How far a restored client's counter skips ahead of the saved one, in
    /// case it sent more ops after the session was saved: far more than a
    /// session makes between two saves, far less than the 2^24 a server
    /// allows beyond a document's highest counter.
    public static let counterGapAfterRestore: UInt64 = 1 << 20

    private static let magic: [UInt8] = Array("EZS1".utf8)

    /// Bytes to write to disk: a 4-byte tag, the replica and the counter
    /// (little-endian), then the ops as a binary op batch.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.append(contentsOf: Self.magic)
        writer.uint64(replica.rawValue)
        writer.uint64(counter)
        writer.append(contentsOf: OpBatchCoding.encode(unacknowledged))
        return writer.bytes
    }

    public init(encoded bytes: [UInt8]) throws(DecodeError) {
        guard bytes.count >= 20, bytes.prefix(4).elementsEqual(Self.magic) else {
            throw DecodeError(.invalidValue, "not a saved Easel session")
        }
        func word(at offset: Int) -> UInt64 {
            bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        let replica = ReplicaID(rawValue: word(at: 4))
        let counter = word(at: 12)
        let ops = try OpBatchCoding.decode(Array(bytes[20...]))
        guard replica.rawValue != 0, ops.allSatisfy({ $0.id.replica == replica && $0.id.counter <= counter }) else {
            throw DecodeError(.invalidValue, "a saved session's ops must be its replica's, below its counter")
        }
        self.init(replica: replica, counter: counter, unacknowledged: ops)
    }
}
