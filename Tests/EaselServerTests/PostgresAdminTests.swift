import EaselModel
import EaselPostgres
import EaselProtocol
import EaselStore
import EaselTestSupport
import Foundation
import Testing

/// `easel db` and `easel log` against a cluster's PostgreSQL (`--store`),
/// as an operator runs them.
@Suite("easel db and easel log on PostgreSQL", .serialized)
struct PostgresAdminTests {
    static let replica = ReplicaID(rawValue: 0xAD)

    /// A document of three ops, appended under a lease as a node would.
    static func board(in postgres: LocalPostgres) throws -> [LoggedOp] {
        let store = try PostgresStore(url: postgres.url)
        let node = try store.registerNode(name: "admin", address: "127.0.0.1:0", timing: LeaseTiming())
        let row = try store.createDocument("team/board", epoch: Epoch(rawValue: 7), at: 1)
        guard case .granted(let lease) = try store.takeLease(of: row, for: node) else {
            throw PostgresError(.unexpected, "no lease")
        }
        let star = EntityID(opID(1, replica))
        let ops = [
            LoggedOp(position: 1, op: op(1, replica, .create(.emoji, [.character("⭐️")])), author: "ada", receivedAt: 1),
            LoggedOp(position: 2, op: op(2, replica, .set(star, .x(10))), author: "ada", receivedAt: 2),
            LoggedOp(position: 3, op: op(3, replica, .set(star, .y(20))), author: "ada", receivedAt: 3),
        ]
        guard store.commit([FencedAppend(document: row, ops: ops, lease: lease)]) == [.committed] else {
            throw PostgresError(.unexpected, "the board's ops were not committed")
        }
        return ops
    }

    @Test(
        "easel db list and snapshot, and easel log export and stat, read a cluster's PostgreSQL with --store; the commands that work on a SQLite file only say so and change nothing"
    )
    func adminCommandsReadPostgres() async throws {
        let postgres = try LocalPostgres()
        defer { postgres.stop() }
        let ops = try Self.board(in: postgres)
        let store = ["--store", postgres.url]

        let list = try await EaselChild(["db", "list"] + store).finished(timeout: 60)
        #expect(list.status == 0, "\(list.errors)")
        let row = list.output.split(separator: "\n").first { $0.hasPrefix("team/board") }
        #expect(row?.split(separator: " ").map(String.init).dropFirst(2).first == "3", "\(list.output)")

        let export = try await EaselChild(["log", "export", "--doc", "team/board"] + store).finished(timeout: 60)
        #expect(export.status == 0, "\(export.errors)")
        let lines = try export.output.split(separator: "\n").map { try OpLogJSON.decode(String($0)) }
        guard case .header(let header)? = lines.first else {
            Issue.record("no header: \(export.output)")
            return
        }
        #expect(header.document == "team/board" && header.epoch == Epoch(rawValue: 7))
        #expect(lines.dropFirst().compactMap { if case .op(let op) = $0 { op } else { nil } } == ops)

        let snapshot = try await EaselChild(["db", "snapshot", "--doc", "team/board"] + store).finished(timeout: 60)
        #expect(snapshot.output.contains("snapshot of team/board at position 3"), "\(snapshot.errors)")
        let stat = try await EaselChild(["log", "stat", "--doc", "team/board"] + store).finished(timeout: 60)
        #expect(stat.status == 0, "\(stat.errors)")
        #expect(stat.output.contains("head      3"))
        #expect(stat.output.contains("snapshot  at 3"))

        let render = try await EaselChild(["render", "--doc", "team/board", "-o", "-"] + store).finished(timeout: 60)
        #expect(render.status != 0)
        #expect(render.errors.contains("works on a SQLite file only"), "\(render.errors)")
    }

    /// A blob stored in the cluster as a node stores one, for `document`.
    static func storeBlob(_ bytes: [UInt8], for document: String, in store: PostgresStore) throws -> BlobHash {
        let hash = BlobHash(digesting: bytes)
        let upload = try store.beginUpload(at: 1)
        try store.appendChunk(bytes, to: upload, sequence: 0)
        _ = try store.finishUpload(
            upload, as: hash, size: Int64(bytes.count), type: .png, document: document, at: 1)
        return hash
    }

    @Test(
        "easel log import, db compact, delete, gc, backup and restore change a cluster's PostgreSQL with --store; delete, restore and a replacing import are refused while a live node holds the document, and change nothing"
    )
    func adminCommandsChangePostgres() async throws {
        let postgres = try LocalPostgres()
        defer { postgres.stop() }
        let ops = try Self.board(in: postgres)
        let store = ["--store", postgres.url]
        let cluster = try PostgresStore(url: postgres.url, migrating: false)
        let folder = NSTemporaryDirectory() + "easel-pg-admin-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        // Import: a new document under a new epoch, with a snapshot at its head.
        let export = try await EaselChild(["log", "export", "--doc", "team/board"] + store).finished(timeout: 60)
        let imported = try await EaselChild(["log", "import", "--doc", "team/copy"] + store, input: export.output)
            .finished(timeout: 60)
        #expect(imported.status == 0, "\(imported.errors)")
        let copy = try cluster.load("team/copy")
        #expect(copy.head == 3 && copy.epoch != Epoch(rawValue: 7))
        #expect(copy.snapshot?.position == 3, "the import left no snapshot at its head")
        let again = try await EaselChild(["log", "import", "--doc", "team/copy"] + store, input: export.output)
            .finished(timeout: 60)
        #expect(again.status != 0 && again.errors.contains("--replace"), "\(again.errors)")

        // A live node holds team/copy: what replaces or removes it is refused.
        let node = try PostgresStore(url: postgres.url, migrating: false)
        let identity = try node.registerNode(
            name: "live", address: "127.0.0.1:7", timing: LeaseTiming(ttl: .seconds(60)))
        let copyRow = try #require(try cluster.document(named: "team/copy"))
        guard case .granted = try node.takeLease(of: copyRow, for: identity) else {
            Issue.record("the live node did not get the lease")
            return
        }
        let refusedDelete = try await EaselChild(["db", "delete", "--doc", "team/copy", "--yes"] + store)
            .finished(timeout: 60)
        #expect(refusedDelete.status != 0)
        #expect(refusedDelete.errors.contains("node live (127.0.0.1:7) serves team/copy"), "\(refusedDelete.errors)")
        let refusedImport = try await EaselChild(
            ["log", "import", "--doc", "team/copy", "--replace"] + store, input: export.output
        ).finished(timeout: 60)
        #expect(refusedImport.status != 0 && refusedImport.errors.contains("serves team/copy"))
        #expect(try cluster.load("team/copy").epoch == copy.epoch, "a refused import changed the document")
        try node.releaseLease(of: copyRow.id, by: identity)
        let deleted = try await EaselChild(["db", "delete", "--doc", "team/copy", "--yes"] + store)
            .finished(timeout: 60)
        #expect(deleted.status == 0, "\(deleted.errors)")
        #expect(try cluster.document(named: "team/copy") == nil)

        // Compact: the ops a snapshot covers go; the document loads the same.
        _ = try cluster.snapshot("team/board", at: 5)
        let compacted = try await EaselChild(["db", "compact", "--doc", "team/board"] + store).finished(timeout: 60)
        #expect(compacted.output.contains("dropped 3 ops of team/board"), "\(compacted.output) \(compacted.errors)")
        let board = try cluster.load("team/board")
        #expect(board.head == 3 && board.tail.isEmpty && board.snapshot?.position == 3)
        #expect(
            board.document().stateHash
                == CommittedHistory(name: "team/board", epoch: board.epoch, tail: ops).document().stateHash)

        // Replacing a history raises its lease's fence: an append its last
        // holder still had in flight is fenced, and stores nothing.
        let boardRow = try #require(try cluster.document(named: "team/board"))
        let held = try cluster.connection.query("SELECT node, fence FROM leases WHERE document = $1") {
            $0.append(boardRow.id)
        }
        let oldLease = Lease(node: try held.int64(0, 0), fence: try held.int64(0, 1))
        let boardLog = try await EaselChild(["log", "export", "--doc", "team/board"] + store).finished(timeout: 60)
        let replaced = try await EaselChild(
            ["log", "import", "--doc", "team/board", "--replace"] + store, input: boardLog.output
        ).finished(timeout: 60)
        #expect(replaced.status == 0, "\(replaced.errors)")
        let late = LoggedOp(
            position: 4, op: op(4, Self.replica, .delete(EntityID(opID(1, Self.replica)))), author: "ada", receivedAt: 4
        )
        #expect(cluster.commit([FencedAppend(document: boardRow, ops: [late], lease: oldLease)]) == [.fenced])
        #expect(try cluster.load("team/board").head == 3)
        // A snapshot a node made of the old history (epoch 7) is not stored
        // over the new one.
        let stale = EncodedSnapshot(StateSnapshot(position: 3, state: [], highWater: [:]))
        #expect(try !cluster.writeSnapshot(stale, of: boardRow, epoch: Epoch(rawValue: 7), at: 9))
        #expect(try cluster.load("team/board").document().visibleCount == 1)

        // Blobs: one a document shows, one nothing refers to.
        let shown = try Self.storeBlob(Array(repeating: 1, count: 3000), for: "team/pictures", in: cluster)
        let garbage = try Self.storeBlob(Array(repeating: 2, count: 2000), for: "team/pictures", in: cluster)
        let pictures = try cluster.createDocument("team/pictures", epoch: Epoch(rawValue: 9), at: 1)
        guard case .granted(let lease) = try node.takeLease(of: pictures, for: identity) else {
            Issue.record("no lease of team/pictures")
            return
        }
        let image = LoggedOp(
            position: 1, op: op(1, Self.replica, .create(.image, [.blob(shown), .width(30), .height(20)])),
            author: "ada", receivedAt: 1)
        #expect(cluster.commit([FencedAppend(document: pictures, ops: [image], lease: lease)]) == [.committed])
        try node.releaseLease(of: pictures.id, by: identity)
        let collected = try await EaselChild(["db", "gc", "--grace-seconds", "0"] + store).finished(timeout: 60)
        #expect(
            collected.output.contains("removed 1 blobs (2000 bytes); kept 1 referenced"),
            "\(collected.output) \(collected.errors)")
        #expect(try cluster.blobBytes(garbage) == nil && cluster.blobBytes(shown) != nil)

        // Backup: a SQLite database and blob file, epochs kept.
        let backup = folder + "/cluster.db"
        let backedUp = try await EaselChild(["db", "backup", "--to", backup] + store).finished(timeout: 60)
        #expect(backedUp.output.contains("backed up 2 documents"), "\(backedUp.output) \(backedUp.errors)")
        let copied = try OpStore(readingBackupAt: backup)
        #expect(try copied.listDocuments().map(\.info.name) == ["team/board", "team/pictures"])
        #expect(try copied.documentInfo("team/pictures")?.epoch == Epoch(rawValue: 9))
        #expect(try BlobStore.reading(besideDatabase: backup)?.blobInfo(shown, document: "team/pictures") != nil)
        let twice = try await EaselChild(["db", "backup", "--to", backup] + store).finished(timeout: 60)
        #expect(twice.status != 0 && twice.errors.contains("already exists"), "\(twice.errors)")

        // Restore is refused while a live node holds the document.
        guard case .granted = try node.takeLease(of: pictures, for: identity) else {
            Issue.record("no lease of team/pictures")
            return
        }
        let refusedRestore = try await EaselChild(
            ["db", "restore", "--doc", "team/pictures", "--from", backup] + store
        ).finished(timeout: 60)
        #expect(refusedRestore.status != 0 && refusedRestore.errors.contains("serves team/pictures"))
        #expect(try cluster.load("team/pictures").epoch == Epoch(rawValue: 9))
        try node.releaseLease(of: pictures.id, by: identity)

        // Restore: the document and its image come back, under a new epoch.
        #expect(
            try await EaselChild(["db", "delete", "--doc", "team/pictures", "--yes"] + store).finished().status == 0)
        _ = try await EaselChild(["db", "gc", "--grace-seconds", "0"] + store).finished(timeout: 60)
        #expect(try cluster.blobBytes(shown) == nil, "the deleted document's image outlived gc")
        let restored = try await EaselChild(
            ["db", "restore", "--doc", "team/pictures", "--from", backup] + store
        ).finished(timeout: 60)
        #expect(restored.output.contains("restored team/pictures"), "\(restored.output) \(restored.errors)")
        let back = try cluster.load("team/pictures")
        #expect(back.head == 1 && back.epoch != Epoch(rawValue: 9))
        #expect(try cluster.locateBlob(shown, document: "team/pictures") != nil)
        #expect(try cluster.blobBytes(shown) == Array(repeating: 1, count: 3000))

        // The same backup restores into a single server's SQLite file.
        let single = folder + "/single.db"
        _ = try OpStore(path: single)
        let intoSQLite = try await EaselChild(
            ["db", "restore", "--doc", "team/pictures", "--from", backup, "--db", single]
        ).finished(timeout: 60)
        #expect(intoSQLite.status == 0, "\(intoSQLite.errors)")
        #expect(try OpStore(path: single).load("team/pictures").head == 1)
    }
}
