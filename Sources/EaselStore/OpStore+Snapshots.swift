import EaselModel
import EaselProtocol

/// A snapshot ready to store, its state already encoded: built on one
/// connection (the snapshot thread's), written on another in a transaction
/// that only inserts it.
public struct EncodedSnapshot: Sendable {
    public var position: UInt64
    public var highWater: [ReplicaID: UInt64]
    /// The state as an op batch (`OpStore.snapshotFormat`).
    public var state: [UInt8]

    public init(_ snapshot: Snapshot) {
        position = snapshot.position
        highWater = snapshot.highWater
        state = OpBatchCoding.encode(snapshot.state)
    }
}

extension OpStore {
    /// Stores a snapshot of a document at a committed position.
    public func writeSnapshot(_ snapshot: Snapshot, of name: String, at now: Int64) throws(StoreError) {
        try writeSnapshot(EncodedSnapshot(snapshot), of: name, at: now)
    }

    /// Stores an encoded snapshot of a document at a committed position.
    public func writeSnapshot(_ snapshot: EncodedSnapshot, of name: String, at now: Int64) throws(StoreError) {
        let id = try documentID(name)
        guard snapshot.position <= Self.largest else {
            throw StoreError(.outOfRange, "position past 2^63 - 1", document: name, position: snapshot.position)
        }
        try inTransaction { () throws(StoreError) in
            let insert = try database.statement(
                "INSERT OR REPLACE INTO snapshots (document, position, format, state, created_at) VALUES (?, ?, ?, ?, ?)"
            )
            try insert.bind(1, id)
            try insert.bind(2, Int64(snapshot.position))
            try insert.bind(3, Self.snapshotFormat)
            try insert.bind(4, snapshot.state)
            try insert.bind(5, now)
            try insert.step()
            let counter = try database.statement(
                "INSERT OR REPLACE INTO snapshot_counters (document, position, replica, counter) VALUES (?, ?, ?, ?)")
            for (replica, high) in snapshot.highWater.sorted(by: { $0.key < $1.key }) {
                guard high <= Self.largest else {
                    throw StoreError(.outOfRange, "counter past 2^63 - 1", document: name, position: snapshot.position)
                }
                counter.reset()
                try counter.bind(1, id)
                try counter.bind(2, Int64(snapshot.position))
                try counter.bind(3, Int64(bitPattern: replica.rawValue))
                try counter.bind(4, Int64(high))
                try counter.step()
            }
        }
    }

    /// Takes a snapshot at the document's head: loads it, and stores its
    /// state and high-water counters. Returns the snapshot's position.
    @discardableResult
    public func snapshot(_ name: String, at now: Int64) throws(StoreError) -> UInt64 {
        let snapshot = try encodedSnapshot(of: name)
        try writeSnapshot(snapshot, of: name, at: now)
        return snapshot.position
    }

    /// The document's snapshot at its head, encoded, and nothing written.
    public func encodedSnapshot(of name: String) throws(StoreError) -> EncodedSnapshot {
        // A snapshot is valid at any committed position; it is read in a
        // read transaction, so a big document's replay keeps no writer waiting.
        var nothingToBuildOn: SnapshotBase?
        return try encodedSnapshot(of: name, continuing: &nothingToBuildOn)
    }

    /// The document's snapshot at its head, built on `base` when that is
    /// the state this document had at an earlier position: only the ops
    /// after it are read and applied, each once, where a whole load reads
    /// the latest stored snapshot and every op since. Anything that makes
    /// the base a stranger to the log (another epoch, a document made
    /// anew, ops compacted away after it) falls back to the whole load.
    /// `base` leaves as the state at the new snapshot's head.
    public func encodedSnapshot(of name: String, continuing base: inout SnapshotBase?) throws(StoreError)
        -> EncodedSnapshot
    {
        let previous = base
        base = nil
        return try readConsistently { () throws(StoreError) in
            guard let info = try documentInfo(name) else {
                throw StoreError(.unknownDocument, "no such document", document: name)
            }
            var next: SnapshotBase
            if var continued = previous, continued.document == info {
                let tail = try ops(of: name, after: continued.position)
                if let first = tail.first, first.position != continued.position + 1 {
                    next = try SnapshotBase(loading: name, of: info, in: self)
                } else {
                    try Self.checkFollowing(tail, after: continued.position, of: name)
                    continued.apply(tail)
                    next = continued
                }
            } else {
                next = try SnapshotBase(loading: name, of: info, in: self)
            }
            base = next
            return EncodedSnapshot(
                Snapshot(position: next.position, state: next.state.snapshotOps, highWater: next.highWater))
        }
    }

    /// The latest snapshot's position, without reading its state.
    public func latestSnapshotPosition(of name: String) throws(StoreError) -> UInt64? {
        let statement = try database.statement("SELECT MAX(position) FROM snapshots WHERE document = ?")
        defer { statement.reset() }
        try statement.bind(1, try documentID(name))
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return try statement.unsigned(0)
    }

    /// The latest snapshot, or with `limit` the latest at or before it.
    public func latestSnapshot(of name: String, atOrBefore limit: UInt64 = .max) throws(StoreError) -> Snapshot? {
        let id = try documentID(name)
        let statement = try database.statement(
            "SELECT position, format, state FROM snapshots WHERE document = ? AND position <= ?"
                + " ORDER BY position DESC LIMIT 1")
        defer { statement.reset() }
        try statement.bind(1, id)
        try statement.bind(2, Int64(min(limit, Self.largest)))
        guard try statement.step() else { return nil }
        let position: UInt64
        do throws(StoreError) {
            position = try statement.unsigned(0)
        } catch {
            throw error.about(document: name)
        }
        guard statement.int64(1) == Self.snapshotFormat else {
            throw StoreError(
                .corruptPayload, "snapshot format \(statement.int64(1)) is unknown to this Easel", document: name,
                position: position)
        }
        let state: [Op]
        do throws(DecodeError) {
            state = try OpBatchCoding.decode(statement.blob(2))
        } catch {
            throw StoreError(
                .corruptPayload, "the snapshot does not decode: \(error)", document: name, position: position)
        }
        let counters = try database.statement(
            "SELECT replica, counter FROM snapshot_counters WHERE document = ? AND position = ?")
        try counters.bind(1, id)
        try counters.bind(2, Int64(position))
        var highWater: [ReplicaID: UInt64] = [:]
        while try counters.step() {
            highWater[ReplicaID(rawValue: UInt64(bitPattern: counters.int64(0)))] = try counters.unsigned(1)
        }
        return Snapshot(position: position, state: state, highWater: highWater)
    }

    /// The latest snapshot and the ops after it: what a room serves from.
    /// Only the tail is replayed on load. Read in one read transaction:
    /// another connection (`easel db compact`) may snapshot and drop the
    /// ops it covers between the two reads.
    public func load(_ name: String) throws(StoreError) -> LoadedDocument {
        try readConsistently { () throws(StoreError) in
            guard let info = try documentInfo(name) else {
                throw StoreError(.unknownDocument, "no such document", document: name)
            }
            let snapshot = try latestSnapshot(of: name)
            let tail = try ops(of: name, after: snapshot?.position ?? 0)
            try Self.checkFollowing(tail, after: snapshot?.position ?? 0, of: name)
            var highWater = snapshot?.highWater ?? [:]
            for stored in tail {
                highWater[stored.op.id.replica] = max(highWater[stored.op.id.replica] ?? 0, stored.op.id.counter)
            }
            return LoadedDocument(
                name: name, epoch: info.epoch, snapshot: snapshot, tail: tail, highWater: highWater)
        }
    }

    /// Refuses ops that do not follow `position` one by one.
    static func checkFollowing(_ ops: [StoredOp], after position: UInt64, of name: String) throws(StoreError) {
        var expected = position + 1
        for stored in ops {
            guard stored.position == expected else {
                throw StoreError(
                    .corruptPayload, "the log skips from position \(expected - 1) to \(stored.position)",
                    document: name, position: stored.position)
            }
            expected += 1
        }
    }

    /// The highest committed counter of each replica, compacted ops included.
    public func highWaterCounters(of name: String) throws(StoreError) -> [ReplicaID: UInt64] {
        let id = try documentID(name)
        var highWater = try latestSnapshot(of: name)?.highWater ?? [:]
        let statement = try database.statement(
            """
            SELECT replica, MAX(counter) FROM ops
            WHERE document = ?1 AND position > COALESCE((SELECT MAX(position) FROM snapshots WHERE document = ?1), 0)
            GROUP BY replica
            """)
        try statement.bind(1, id)
        while try statement.step() {
            let replica = ReplicaID(rawValue: UInt64(bitPattern: statement.int64(0)))
            highWater[replica] = max(highWater[replica] ?? 0, try statement.unsigned(1))
        }
        return highWater
    }

    /// Drops the ops the latest snapshot covers, and older snapshots.
    /// History is kept until someone asks for this. Returns the ops dropped.
    @discardableResult
    public func compact(_ name: String) throws(StoreError) -> Int {
        let id = try documentID(name)
        return try inTransaction { () throws(StoreError) -> Int in
            guard let latest = try latestSnapshot(of: name) else { return 0 }
            let dropOps = try database.statement("DELETE FROM ops WHERE document = ? AND position <= ?")
            try dropOps.bind(1, id)
            try dropOps.bind(2, Int64(latest.position))
            try dropOps.step()
            let dropped = database.changes
            for sql in [
                "DELETE FROM snapshot_counters WHERE document = ? AND position < ?",
                "DELETE FROM snapshots WHERE document = ? AND position < ?",
            ] {
                let statement = try database.statement(sql)
                try statement.bind(1, id)
                try statement.bind(2, Int64(latest.position))
                try statement.step()
            }
            return dropped
        }
    }
}

/// A document's state at a committed position, kept by the thread that
/// snapshots it so the next snapshot reads only the ops after it.
public struct SnapshotBase: Sendable {
    /// Which document it is: a document deleted and made again under the
    /// same name is another.
    let document: DocumentInfo
    private(set) var position: UInt64
    private(set) var state: Document
    private(set) var highWater: [ReplicaID: UInt64]

    init(loading name: String, of document: DocumentInfo, in store: OpStore) throws(StoreError) {
        let loaded = try store.load(name)
        self.document = document
        position = loaded.head
        state = loaded.document()
        highWater = loaded.highWater
    }

    mutating func apply(_ tail: [StoredOp]) {
        for stored in tail {
            state.apply(stored.op)
            highWater[stored.op.id.replica] = max(highWater[stored.op.id.replica] ?? 0, stored.op.id.counter)
        }
        position = tail.last?.position ?? position
    }
}
