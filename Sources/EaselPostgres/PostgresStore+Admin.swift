import EaselModel
import EaselProtocol
import EaselStore

/// What `easel db` and `easel log` change in a cluster's database, as they
/// change the SQLite file. The nodes keep serving meanwhile: compacting is
/// safe under them, and what replaces or removes a document's history is
/// refused while a live node holds its lease.
extension PostgresStore {
    /// Drops the ops the latest snapshot covers, and older snapshots, in one
    /// transaction; returns how many ops. Safe while a node serves the
    /// document: a room keeps what it serves in memory, and a load reads the
    /// latest snapshot and the ops after it in one consistent view.
    @discardableResult
    public func compact(_ name: String) throws(PostgresError) -> Int {
        try connection.transaction { () throws(PostgresError) -> Int in
            // KEY SHARE: an import or restore (FOR UPDATE) waits, appends do not.
            let locked = try connection.query("SELECT id FROM documents WHERE name = $1 FOR KEY SHARE") {
                $0.append(name)
            }
            guard locked.count == 1 else { throw PostgresError(.refused, "no such document: \(name)") }
            let document = try existing(name)
            guard let latest = try latestSnapshotPosition(of: document) else { return 0 }
            let dropped = try connection.query("DELETE FROM ops WHERE document = $1 AND position <= $2") {
                $0.append(document.id)
                $0.append(Int64(latest))
            }.changed
            // Their high-water counters go with them (ON DELETE CASCADE).
            try connection.query("DELETE FROM snapshots WHERE document = $1 AND position < $2") {
                $0.append(document.id)
                $0.append(Int64(latest))
            }
            return dropped
        }
    }

    /// Deletes a document with its log, snapshots and lease; refused while a
    /// live node holds the lease.
    public func deleteDocument(_ name: String) throws(PostgresError) {
        try connection.transaction { () throws(PostgresError) in
            let document = try lockedUnserved(name)
            try connection.query("DELETE FROM documents WHERE id = $1") { $0.append(document.id) }
        }
    }

    /// Creates a document from a log (Docs/log-format.md), or with `replace`
    /// replaces an existing document's history and gives it a new epoch, so
    /// clients start again from a snapshot (refused while a live node holds
    /// its lease). Everything or nothing is written. A log with ops past its
    /// snapshot is stored with a snapshot at its head too, as a room leaves
    /// a document it unloads, so the first load does not replay it all.
    public func importLog(
        _ lines: some Sequence<String>, as name: String, replace: Bool, at now: Int64
    ) throws(PostgresError) -> ImportSummary {
        let log: OpLogJSON.Log
        do throws(OpLogJSON.ReadError) {
            log = try OpLogJSON.read(lines)
        } catch {
            throw PostgresError(.refused, "the log does not read: \(error)")
        }
        let head = log.ops.last?.position ?? log.snapshot?.position ?? 0
        guard head <= Self.largest, log.ops.allSatisfy({ $0.op.id.counter <= Self.largest }) else {
            throw PostgresError(.refused, "a position or counter in the log is past 2^63 - 1")
        }
        // Never 0: a room takes that for no epoch yet.
        let epoch = Epoch(rawValue: UInt64.random(in: 1...UInt64.max))
        let snapshotAtHead = log.ops.isEmpty ? nil : Self.snapshot(atHeadOf: log, name: name, epoch: epoch)
        try connection.transaction { () throws(PostgresError) in
            let document: PostgresDocument
            if try self.document(named: name) != nil {
                guard replace else {
                    throw PostgresError(.refused, "\(name) exists; --replace replaces its history")
                }
                document = try lockedUnserved(name)
                try connection.query("DELETE FROM ops WHERE document = $1") { $0.append(document.id) }
                try connection.query("DELETE FROM snapshots WHERE document = $1") { $0.append(document.id) }
                try connection.query("UPDATE documents SET epoch = $2, head = $3 WHERE id = $1") {
                    $0.append(document.id)
                    $0.append(Int64(bitPattern: epoch.rawValue))
                    $0.append(Int64(head))
                }
            } else {
                let created = try connection.query(
                    """
                    INSERT INTO documents (name, epoch, created_at, head) VALUES ($1, $2, $3, $4)
                    ON CONFLICT (name) DO NOTHING RETURNING id
                    """
                ) {
                    $0.append(name)
                    $0.append(Int64(bitPattern: epoch.rawValue))
                    $0.append(now)
                    $0.append(Int64(head))
                }
                guard created.count == 1 else {
                    throw PostgresError(.refused, "\(name) was created meanwhile; --replace replaces its history")
                }
                document = PostgresDocument(
                    id: try created.int64(0, 0), name: name, epoch: epoch, createdAt: now, head: head)
            }
            if let snapshot = log.snapshot { try insertSnapshot(EncodedSnapshot(snapshot), of: document, at: now) }
            try insertOps(log.ops, of: document)
            if let snapshotAtHead { try insertSnapshot(snapshotAtHead, of: document, at: now) }
        }
        return ImportSummary(
            document: name, epoch: epoch, snapshotPosition: log.snapshot?.position, ops: log.ops.count, head: head)
    }

    // MARK: Helpers

    func existing(_ name: String) throws(PostgresError) -> PostgresDocument {
        guard let document = try document(named: name) else {
            throw PostgresError(.refused, "no such document: \(name)")
        }
        return document
    }

    /// Within the caller's transaction: the document's lease row and its
    /// row locked (in the order an append locks them), so no node takes
    /// the lease until it ends; refused when a live node holds it. The lease
    /// is left to no node, with its fence raised: an append a node that
    /// lost it still has in flight fails.
    func lockedUnserved(_ name: String) throws(PostgresError) -> PostgresDocument {
        let leaseQuery =
            "SELECT node FROM leases WHERE document = (SELECT id FROM documents WHERE name = $1) FOR UPDATE"
        var lease = try connection.query(leaseQuery) { $0.append(name) }
        let rows = try connection.query("SELECT id FROM documents WHERE name = $1 FOR UPDATE") { $0.append(name) }
        guard rows.count == 1 else { throw PostgresError(.refused, "no such document: \(name)") }
        // A take that inserted the lease row before the document's row was
        // locked (an insert waits for that lock now).
        if lease.count == 0 { lease = try connection.query(leaseQuery) { $0.append(name) } }
        if lease.count == 1, !lease.isNull(0, 0), let holder = try liveNode(lease.int64(0, 0)) {
            throw PostgresError(
                .refused,
                "node \(holder.name) (\(holder.address)) serves \(name): try again once nobody has it open "
                    + "(an idle room unloads), or drain that node")
        }
        let id = try rows.int64(0, 0)
        try connection.query("UPDATE leases SET node = NULL, handover_to = NULL, fence = fence + 1 WHERE document = $1")
        {
            $0.append(id)
        }
        return try existing(name)
    }

    /// The node, if it is alive as a take judges it: its row unexpired, its
    /// session holding the lock on its id.
    func liveNode(_ id: Int64) throws(PostgresError) -> (name: String, address: String)? {
        let holder = try connection.query(
            """
            SELECT name, address FROM nodes
            WHERE id = $1 AND expires_at > now() AND NOT pg_try_advisory_xact_lock_shared(id)
            """
        ) { $0.append(id) }
        return holder.count == 1 ? (try holder.text(0, 0), try holder.text(0, 1)) : nil
    }

    /// The live node holding the document's lease, if any: looked at
    /// without a lock, to refuse early what `lockedUnserved` would.
    func servingNode(of name: String) throws(PostgresError) -> (name: String, address: String)? {
        let lease = try connection.query(
            "SELECT node FROM leases WHERE document = (SELECT id FROM documents WHERE name = $1) AND node IS NOT NULL"
        ) { $0.append(name) }
        return lease.count == 1 ? try liveNode(try lease.int64(0, 0)) : nil
    }

    /// Inserts positioned ops as they are, a page of rows a statement;
    /// within the caller's transaction, unfenced (the caller locked the
    /// lease). An op the log holds already fails the statement.
    func insertOps(_ ops: [LoggedOp], of document: PostgresDocument) throws(PostgresError) {
        var start = 0
        while start < ops.count {
            let page = ops[start..<min(start + 10_000, ops.count)]
            try connection.query(
                """
                INSERT INTO ops (document, position, replica, counter, author, received_at, format, payload)
                SELECT $1, op.position, op.replica, op.counter, op.author, op.received_at, $2, op.payload
                FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::text[], $7::bigint[], $8::bytea[])
                    AS op(position, replica, counter, author, received_at, payload)
                """
            ) {
                $0.append(document.id)
                $0.append(Int32(Self.payloadFormat))
                $0.append(int8Array: page.lazy.map { Int64($0.position) })
                $0.append(int8Array: page.lazy.map { Int64(bitPattern: $0.op.id.replica.rawValue) })
                $0.append(int8Array: page.lazy.map { Int64($0.op.id.counter) })
                $0.append(textArray: page.lazy.map(\.author))
                $0.append(int8Array: page.lazy.map(\.receivedAt))
                $0.append(byteaArray: page.count) { index, buffer in
                    buffer.append(contentsOf: OpBatchCoding.encode([page[page.startIndex + index].op]))
                }
            }
            start += page.count
        }
    }

    /// The state at a log's head, as a snapshot.
    static func snapshot(atHeadOf log: OpLogJSON.Log, name: String, epoch: Epoch) -> EncodedSnapshot {
        var highWater = log.snapshot?.highWater ?? [:]
        for stored in log.ops {
            highWater[stored.op.id.replica] = max(highWater[stored.op.id.replica] ?? 0, stored.op.id.counter)
        }
        let history = CommittedHistory(
            name: name, epoch: epoch, snapshot: log.snapshot, tail: log.ops, highWater: highWater)
        return EncodedSnapshot(
            StateSnapshot(position: history.head, state: history.document().snapshotOps, highWater: highWater))
    }
}
