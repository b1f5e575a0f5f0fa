import EaselModel
import EaselProtocol
import Foundation

/// What an import wrote.
public struct ImportSummary: Hashable, Sendable {
    public var document: String
    public var epoch: Epoch
    public var snapshotPosition: UInt64?
    public var ops: Int
    public var head: UInt64

    public init(document: String, epoch: Epoch, snapshotPosition: UInt64?, ops: Int, head: UInt64) {
        self.document = document
        self.epoch = epoch
        self.snapshotPosition = snapshotPosition
        self.ops = ops
        self.head = head
    }
}

extension OpStore {
    /// Writes a document's log as JSON Lines (Docs/log-format.md): a header,
    /// a snapshot line when older ops were compacted away, one line per op.
    public func exportLog(_ name: String, write: (String) throws -> Void) throws {
        // One read transaction: a snapshot and compaction meanwhile cannot
        // leave the export without its snapshot line or with a gap.
        let ownsTransaction = !database.isInTransaction
        if ownsTransaction { try database.execute("BEGIN DEFERRED") }
        defer { if ownsTransaction { _ = try? database.execute("COMMIT") } }
        guard let info = try documentInfo(name) else {
            throw StoreError(.unknownDocument, "no such document", document: name)
        }
        try write(OpLogJSON.encode(.header(.init(document: name, epoch: info.epoch))))
        let first = try ops(of: name, after: 0, limit: 1).first?.position
        let head = try head(of: name)
        var after: UInt64 = 0
        // The snapshot the kept ops start from, not a later one: an
        // imported document also has one at its head.
        if head > 0, first != 1 {
            guard let snapshot = try latestSnapshot(of: name, atOrBefore: (first ?? head + 1) - 1) else {
                throw StoreError(
                    .corruptPayload, "the kept ops start at \(first ?? head + 1) with no snapshot before them",
                    document: name)
            }
            try write(OpLogJSON.encode(.snapshot(snapshot)))
            after = snapshot.position
        }
        // In pages, so a long history is never all in memory at once.
        while true {
            let page = try ops(of: name, after: after, limit: 10_000)
            for stored in page { try write(OpLogJSON.encode(.op(stored))) }
            guard let last = page.last else { break }
            after = last.position
        }
    }

    /// Everything a document keeps, for stepping through it: every op, from
    /// the snapshot they start from when older ones were compacted away
    /// (not a later snapshot: the server and imports take those at heads).
    /// Read in one transaction, and refused if the kept ops skip a position.
    public func keptHistory(of name: String) throws(StoreError) -> (base: Snapshot?, ops: [StoredOp]) {
        try readConsistently { () throws(StoreError) in
            guard try documentInfo(name) != nil else {
                throw StoreError(.unknownDocument, "no such document", document: name)
            }
            let ops = try ops(of: name, after: 0)
            let head = try head(of: name)
            let compacted = ops.first.map { $0.position > 1 } ?? (head > 0)
            let base = compacted ? try latestSnapshot(of: name, atOrBefore: (ops.first?.position ?? head + 1) - 1) : nil
            try Self.checkFollowing(ops, after: base?.position ?? 0, of: name)
            return (base, ops)
        }
    }

    /// Creates a document from a log, or with `replace` replaces an existing
    /// document's history and gives it a new epoch (refused while a server
    /// serves it). Everything or nothing is written. A new document takes a
    /// new epoch too, unless `keepingEpoch` (a backup keeps the log's).
    ///
    /// A log with ops past its snapshot is stored with a snapshot at its
    /// head too, as the server leaves a document it unloads: otherwise the
    /// first load would replay the whole log (52,000 ops, most of a second,
    /// before a board of 50,000 entities is welcomed).
    public func importLog(
        _ lines: some Sequence<String>, as name: String, replace: Bool, at now: Int64, keepingEpoch: Bool = false
    ) throws(StoreError) -> ImportSummary {
        let log: OpLogJSON.Log
        do throws(OpLogJSON.ReadError) {
            log = try OpLogJSON.read(lines)
        } catch {
            throw StoreError(.corruptPayload, error.description, document: name)
        }
        let (snapshot, ops) = (log.snapshot, log.ops)
        let epoch = keepingEpoch ? log.header.epoch : Epoch(rawValue: UInt64.random(in: 1...UInt64.max))
        try inTransaction { () throws(StoreError) in
            if try documentInfo(name) != nil {
                guard replace else {
                    throw StoreError(
                        .documentExists, "the document exists; --replace replaces its history", document: name)
                }
                if let server = try servingProcess(of: name) {
                    throw StoreError(
                        .documentBusy, "process \(server) is serving the document; stop it first", document: name)
                }
                try clearHistory(of: name)
                try setEpoch(epoch, of: name)
            } else {
                try createDocument(name, epoch: epoch, at: now)
            }
            if let snapshot { try writeSnapshot(snapshot, of: name, at: now) }
            try append(ops, to: name)
            if !ops.isEmpty { try self.snapshot(name, at: now) }
        }
        return ImportSummary(
            document: name, epoch: epoch, snapshotPosition: snapshot?.position, ops: ops.count,
            head: log.head)
    }

    /// Removes a document's ops and snapshots, keeping the document.
    func clearHistory(of name: String) throws(StoreError) {
        let id = try documentID(name)
        for sql in [
            "DELETE FROM snapshot_counters WHERE document = ?", "DELETE FROM snapshots WHERE document = ?",
            "DELETE FROM ops WHERE document = ?",
        ] {
            let statement = try database.statement(sql)
            try statement.bind(1, id)
            try statement.step()
        }
    }

    // MARK: Who serves a document

    /// Records that this process serves a document (the server does, for
    /// each room it loads).
    public func markServing(_ name: String, at now: Int64) throws(StoreError) {
        let statement = try database.statement("INSERT OR REPLACE INTO serving (document, pid, since) VALUES (?, ?, ?)")
        try statement.bind(1, name)
        try statement.bind(2, Int64(getpid()))
        try statement.bind(3, now)
        try statement.step()
    }

    public func unmarkServing(_ name: String) throws(StoreError) {
        let statement = try database.statement("DELETE FROM serving WHERE document = ? AND pid = ?")
        try statement.bind(1, name)
        try statement.bind(2, Int64(getpid()))
        try statement.step()
    }

    /// The live process serving a document, if any (a mark left by a process
    /// that died is ignored).
    public func servingProcess(of name: String) throws(StoreError) -> Int32? {
        let statement = try database.statement("SELECT pid FROM serving WHERE document = ?")
        defer { statement.reset() }
        try statement.bind(1, name)
        guard try statement.step() else { return nil }
        guard let pid = Int32(exactly: statement.int64(0)), pid > 0 else { return nil }
        // EPERM: alive, but another user's.
        return kill(pid, 0) == 0 || errno == EPERM ? pid : nil
    }
}

extension OpStore {
    /// Copies the whole database to `path`, and its blob file to the blob
    /// file beside that path, each with `VACUUM INTO`: consistent copies even
    /// while another process writes. The op log first: a blob it refers to
    /// is still referenced, so still there, when the blob file is copied.
    public func backup(to path: String) throws(StoreError) {
        for file in [path, BlobStore.path(besideDatabase: path)] where FileManager.default.fileExists(atPath: file) {
            throw StoreError(.fileExists, "\(file) already exists: a backup never overwrites a file")
        }
        try database.copy(to: path)
        try BlobStore(besideDatabase: self.path, durability: durability)
            .backup(to: BlobStore.path(besideDatabase: path))
    }

    /// Replaces one document's history with its history in a backup (or
    /// creates it), under a new epoch so clients resync, and brings back the
    /// blobs the backup held for it.
    public func restore(_ name: String, from backupPath: String, at now: Int64) throws -> ImportSummary {
        let (backup, backupBlobs) = try Self.openBackup(at: backupPath)
        var lines: [String] = []
        try backup.exportLog(name) { lines.append($0) }
        let summary = try importLog(lines, as: name, replace: true, at: now)
        if let backupBlobs {
            try BlobStore(besideDatabase: path, durability: durability).copyBlobs(of: name, from: backupBlobs, at: now)
        }
        return summary
    }

    /// A backup opened only to read, with its blob file (nil for a backup
    /// from before blobs); refused when it should have a blob file and
    /// the file is missing.
    public static func openBackup(at path: String) throws(StoreError) -> (opLog: OpStore, blobs: BlobStore?) {
        let backup = try OpStore(readingBackupAt: path)
        let blobs = try BlobStore.reading(besideDatabase: path)
        if blobs == nil, try Schema.opLog.check(backup.database) >= 4 {
            throw StoreError(
                .missingFile,
                "the backup's blob file \(BlobStore.path(besideDatabase: path)) is missing: "
                    + "copy it beside the backup (a backup is both files)")
        }
        return (backup, blobs)
    }
}
