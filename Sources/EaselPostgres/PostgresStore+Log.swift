import EaselProtocol
import EaselStore

/// What `easel db` and `easel log` do to a document in PostgreSQL, as they
/// do to the SQLite file (Docs/log-format.md).
extension PostgresStore {
    /// Writes the document's log as JSON Lines: its header, the snapshot
    /// the kept ops start from (when they do not start at 1), then every
    /// op in position order, read in one repeatable-read transaction so a
    /// node appending meanwhile leaves no gap.
    public func exportLog(_ name: String, write: (String) throws -> Void) throws {
        // The caller's writer throws what typed throws cannot carry.
        func add(_ line: String) throws(PostgresError) {
            do {
                try write(line)
            } catch {
                throw PostgresError(.unexpected, "cannot write the log: \(error)")
            }
        }
        try readConsistently { () throws(PostgresError) in try writeLog(of: name, to: add) }
    }

    /// `exportLog` within the caller's transaction.
    func writeLog(of name: String, to add: (String) throws(PostgresError) -> Void) throws(PostgresError) {
        guard let document = try document(named: name) else {
            throw PostgresError(.refused, "no such document: \(name)")
        }
        try add(OpLogJSON.encode(.header(.init(document: name, epoch: document.epoch))))
        let first = try ops(of: document, after: 0, limit: 1).first?.position
        var after: UInt64 = 0
        if document.head > 0, first != 1 {
            guard let snapshot = try latestSnapshot(of: document, atOrBefore: (first ?? document.head + 1) - 1)
            else {
                throw PostgresError(
                    .corrupt,
                    "\(name)'s kept ops start at \(first ?? document.head + 1) with no snapshot before them")
            }
            try add(OpLogJSON.encode(.snapshot(snapshot)))
            after = snapshot.position
        }
        // In pages, so a long history is never all in memory at once.
        while true {
            let page = try ops(of: document, after: after, limit: 10_000)
            for stored in page { try add(OpLogJSON.encode(.op(stored))) }
            guard let last = page.last else { break }
            after = last.position
        }
    }

    /// Snapshots the document at its head (unless a snapshot is there
    /// already); the position.
    public func snapshot(_ name: String, at now: Int64) throws(PostgresError) -> UInt64 {
        let document = try existing(name)
        let (snapshot, epoch) = try encodedSnapshot(of: name)
        if try latestSnapshotPosition(of: document) != snapshot.position {
            guard try writeSnapshot(snapshot, of: document, epoch: epoch, at: now) else {
                throw PostgresError(.refused, "\(name)'s history was replaced meanwhile: snapshot it again")
            }
        }
        return snapshot.position
    }
}
