/// Nodes and leases in SQL. A node's leases live while its row is renewed
/// (by the database's clock) AND its session holds the advisory lock on its
/// id: a killed node's session ends at once, so its documents may be taken
/// at once; a paused or partitioned one keeps them until its row expires.
/// Whoever takes a lease raises its fence, and every append checks the
/// fence in its own transaction, so a node that lost a lease can never
/// append to that document again (Docs/scaling.md).
extension PostgresStore {
    /// The channel releases are announced on, with the document's id.
    public static let releaseChannel = "easel_leases"
    /// The channel a node starting announces itself on, with its name: the
    /// router may now send it documents other nodes hold.
    public static let nodesChannel = "easel_nodes"
    /// The channel a node asks a holder on to hand a document over, with
    /// `<holder's id>:<document's id>:<asker's name>`.
    public static let handoverChannel = "easel_handover"

    /// Adds this process to `nodes`, and holds the advisory lock on its id
    /// for as long as this connection lives.
    public func registerNode(name: String, address: String, timing: LeaseTiming) throws(PostgresError)
        -> NodeIdentity
    {
        // Rows of nodes long gone: their leases fall back to no node.
        try connection.query("DELETE FROM nodes WHERE expires_at < now() - interval '1 hour'")
        let rows = try connection.query(
            """
            INSERT INTO nodes (name, address, expires_at)
            VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000)) RETURNING id
            """
        ) {
            $0.append(name)
            $0.append(address)
            $0.append(timing.ttlMilliseconds)
        }
        let node = NodeIdentity(id: try rows.int64(0, 0), name: name, address: address)
        try holdNodeLock(node)
        try connection.query("SELECT pg_notify($1, $2)") {
            $0.append(Self.nodesChannel)
            $0.append(name)
        }
        return node
    }

    /// Takes the session's advisory lock on the node's id (again, after a
    /// reconnect): while this session lives, the node is alive.
    public func holdNodeLock(_ node: NodeIdentity) throws(PostgresError) {
        try connection.query("SELECT pg_advisory_lock($1)") { $0.append(node.id) }
    }

    /// Moves the node's expiry on. Whether its row had not yet expired:
    /// when it had (the node was paused or cut off), other nodes may have
    /// taken its leases, and its owner must check which it still holds.
    public func renew(_ node: NodeIdentity, timing: LeaseTiming) throws(PostgresError) -> Bool {
        let rows = try connection.query(
            """
            WITH old AS (SELECT expires_at FROM nodes WHERE id = $1 FOR UPDATE)
            UPDATE nodes SET expires_at = now() + make_interval(secs => $2::double precision / 1000)
            FROM old WHERE nodes.id = $1 RETURNING old.expires_at > now()
            """
        ) {
            $0.append(node.id)
            $0.append(timing.ttlMilliseconds)
        }
        if rows.count == 1 { return try rows.bool(0, 0) }
        // Deleted after an hour gone: back under the same id, holding nothing.
        try connection.query(
            """
            INSERT INTO nodes (id, name, address, expires_at)
            VALUES ($1, $2, $3, now() + make_interval(secs => $4::double precision / 1000))
            """
        ) {
            $0.append(node.id)
            $0.append(node.name)
            $0.append(node.address)
            $0.append(timing.ttlMilliseconds)
        }
        return false
    }

    /// Asks for a document's lease. Granted when nobody holds it, when this
    /// node does (with the fence it has; a handover it began is called
    /// off, since it is loading the document again), or when its holder is
    /// gone: its session ended or its row expired; then the fence is raised.
    /// A live holder that is draining, or handing the lease to this node,
    /// is answered as `releasing`.
    ///
    /// The lease row is locked alone first, and its holder looked at in a
    /// second statement: a join locked in one statement would, after
    /// waiting for another node's take to commit, see the new holder with
    /// the old holder's row, find no row, and take the lease from a node
    /// that had just taken it.
    public func takeLease(of document: PostgresDocument, for node: NodeIdentity) throws(PostgresError) -> LeaseAnswer {
        for _ in 0..<3 {
            let answer = try connection.transaction { () throws(PostgresError) -> LeaseAnswer? in
                let locked = try connection.query(
                    "SELECT node, fence, handover_to FROM leases WHERE document = $1 FOR UPDATE"
                ) { $0.append(document.id) }
                guard locked.count == 1 else {
                    let inserted = try connection.query(
                        "INSERT INTO leases (document, node, fence) VALUES ($1, $2, 1) ON CONFLICT DO NOTHING RETURNING fence"
                    ) {
                        $0.append(document.id)
                        $0.append(node.id)
                    }
                    // Another node inserted it first: look again.
                    return inserted.count == 1 ? .granted(Lease(node: node.id, fence: try inserted.int64(0, 0))) : nil
                }
                let fence = try locked.int64(0, 1)
                if !locked.isNull(0, 0) {
                    let holder = try locked.int64(0, 0)
                    if holder == node.id {
                        if !locked.isNull(0, 2) {
                            try connection.query("UPDATE leases SET handover_to = NULL WHERE document = $1") {
                                $0.append(document.id)
                            }
                        }
                        return .granted(Lease(node: node.id, fence: fence))
                    }
                    let handedToThisNode = locked.isNull(0, 2) ? false : try locked.int64(0, 2) == node.id
                    // Alive: its row unexpired and its session holding the lock on its id.
                    let rows = try connection.query(
                        """
                        SELECT name, address, (extract(epoch FROM expires_at - now()) * 1000)::bigint, draining,
                            NOT pg_try_advisory_xact_lock_shared(id)
                        FROM nodes WHERE id = $1
                        """
                    ) { $0.append(holder) }
                    if rows.count == 1, try rows.int64(0, 2) > 0, try rows.bool(0, 4) {
                        let identity = NodeIdentity(id: holder, name: try rows.text(0, 0), address: try rows.text(0, 1))
                        return .held(
                            by: identity, expiresInMilliseconds: try rows.int64(0, 2),
                            releasing: try rows.bool(0, 3) || handedToThisNode)
                    }
                }
                try connection.query("UPDATE leases SET node = $2, fence = $3, handover_to = NULL WHERE document = $1")
                {
                    $0.append(document.id)
                    $0.append(node.id)
                    $0.append(fence + 1)
                }
                return .granted(Lease(node: node.id, fence: fence + 1))
            }
            if let answer { return answer }
        }
        throw PostgresError(.unexpected, "the lease of \(document.name) changed hands three times while being taken")
    }

    /// The leases a node holds: document id to fence.
    public func leases(of node: NodeIdentity) throws(PostgresError) -> [Int64: Int64] {
        let rows = try connection.query("SELECT document, fence FROM leases WHERE node = $1") { $0.append(node.id) }
        var held: [Int64: Int64] = [:]
        for row in 0..<rows.count { held[try rows.int64(row, 0)] = try rows.int64(row, 1) }
        return held
    }

    /// The documents whose leases the live node of this name holds.
    public func documentsHeld(byNodeNamed name: String) throws(PostgresError) -> [String] {
        let rows = try connection.query(
            """
            SELECT d.name FROM leases l JOIN documents d ON d.id = l.document JOIN nodes n ON n.id = l.node
            WHERE n.name = $1 AND n.expires_at > now() ORDER BY d.name
            """
        ) { $0.append(name) }
        var names: [String] = []
        for row in 0..<rows.count { names.append(try rows.text(row, 0)) }
        return names
    }

    /// Gives a document's lease up, if the node still holds it, and says so
    /// to every node listening.
    public func releaseLease(of document: Int64, by node: NodeIdentity) throws(PostgresError) {
        try connection.query("UPDATE leases SET node = NULL, handover_to = NULL WHERE document = $1 AND node = $2") {
            $0.append(document)
            $0.append(node.id)
        }
        try connection.query("SELECT pg_notify($1, $2)") {
            $0.append(Self.releaseChannel)
            $0.append(String(document))
        }
    }

    /// Marks a lease this node holds as being handed to the live node of
    /// that name, which then waits for its release (the room unloading)
    /// instead of sending clients back here. Whether it was marked: not
    /// when the lease is no longer this node's, or no such node is serving.
    public func beginHandover(of document: Int64, by node: NodeIdentity, to name: String) throws(PostgresError)
        -> Bool
    {
        // A handover to another node under way (one asked for) is left as it is.
        let rows = try connection.query(
            """
            WITH target AS (
                SELECT id FROM nodes WHERE name = $3 AND expires_at > now() AND NOT draining ORDER BY id DESC LIMIT 1
            )
            UPDATE leases SET handover_to = target.id FROM target
            WHERE leases.document = $1 AND leases.node = $2
                AND (leases.handover_to IS NULL OR leases.handover_to = target.id)
            RETURNING 1
            """
        ) {
            $0.append(document)
            $0.append(node.id)
            $0.append(name)
        }
        return rows.count == 1
    }

    /// Asks the live holder of a document's lease to hand it to `node`:
    /// marks the lease (unless a handover is under way already) and tells
    /// the holder. Whether it was asked; then `node`'s takes are answered
    /// `releasing` until the holder releases the lease, or calls it off.
    public func askHandover(of document: Int64, from holder: Int64, to node: NodeIdentity) throws(PostgresError)
        -> Bool
    {
        let rows = try connection.query(
            """
            WITH marked AS (
                UPDATE leases SET handover_to = $3 WHERE document = $1 AND node = $2 AND handover_to IS NULL
                RETURNING document
            )
            SELECT pg_notify($4, $2::text || ':' || $1::text || ':' || $5) FROM marked
            """
        ) {
            $0.append(document)
            $0.append(holder)
            $0.append(node.id)
            $0.append(Self.handoverChannel)
            $0.append(node.name)
        }
        return rows.count == 1
    }

    /// Gives up a handover marked for `node` (it waited for the release
    /// long enough): its next take asks the holder again.
    public func giveUpHandover(of document: Int64, to node: NodeIdentity) throws(PostgresError) {
        try connection.query("UPDATE leases SET handover_to = NULL WHERE document = $1 AND handover_to = $2") {
            $0.append(document)
            $0.append(node.id)
        }
    }

    /// Calls off a handover of a lease this node holds: the node it was
    /// marked for is sent here again.
    public func callOffHandover(of document: Int64, by node: NodeIdentity) throws(PostgresError) {
        try connection.query("UPDATE leases SET handover_to = NULL WHERE document = $1 AND node = $2") {
            $0.append(document)
            $0.append(node.id)
        }
    }

    /// A node beginning to stop: nodes asked for its documents wait for
    /// their release instead of sending clients back to it.
    public func markDraining(_ node: NodeIdentity) throws(PostgresError) {
        try connection.query("UPDATE nodes SET draining = true WHERE id = $1") { $0.append(node.id) }
    }

    /// A node stopping: every lease released, its row expired, the others told.
    public func releaseEverything(of node: NodeIdentity) throws(PostgresError) {
        try connection.transaction { () throws(PostgresError) in
            try connection.query("UPDATE leases SET node = NULL, handover_to = NULL WHERE node = $1") {
                $0.append(node.id)
            }
            try connection.query("UPDATE nodes SET expires_at = now() WHERE id = $1") { $0.append(node.id) }
            try connection.query("SELECT pg_notify($1, '*')") { $0.append(Self.releaseChannel) }
        }
    }
}
