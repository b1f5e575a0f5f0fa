import EaselModel
import EaselProtocol
import EaselStore
import Foundation
import Testing

/// `easel replay` end to end: on a log that bots recorded through a real
/// server, and on logs with faults planted at known positions.
@Suite struct ReplayCommandTests {
    @Test func replayingABotRecordedLogFromItsFileAndFromTheDatabaseGivesTheServersFinalHash() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let bots = try runEasel([
            "bot", "--url", "ws://127.0.0.1:\(server.port)", "--doc", "replay/bots", "--random", "--bots", "4",
            "--duration", "3s", "--rate", "8", "--seed", "10",
        ])
        #expect(bots.status == 0, "\(bots.output) \(bots.errors)")
        let served = try readServer(port: server.port, document: "replay/bots")
        let export = try runEasel(["log", "export", "--db", server.databasePath, "--doc", "replay/bots"])
        #expect(export.status == 0, "\(export.errors)")
        let logPath = server.databasePath + ".jsonl"
        try export.output.write(toFile: logPath, atomically: true, encoding: .utf8)
        #expect(export.output.split(separator: "\n").count > 20, "the bots recorded too little to replay")

        let fromFile = try runEasel(["replay", "--log", logPath])
        let fromDatabase = try runEasel(["replay", "--db", server.databasePath, "--doc", "replay/bots"])
        for run in [fromFile, fromDatabase] {
            #expect(run.status == 0, "\(run.errors)")
            #expect(
                run.output.contains("\(served.entities) entities, state \(served.hash.hex) \(served.hash.emojiKey)"),
                "\(run.output)")
        }
        // Each printed line's hash is the state after its op: the last one
        // is the server's.
        let printed = try runEasel(["replay", "--log", logPath, "--print"])
        let lines = printed.output.split(separator: "\n")
        #expect(lines.count == export.output.split(separator: "\n").count)
        #expect(lines.last?.contains(served.hash.hex) == true)
        #expect(try runEasel(["replay", "--log", logPath, "--check"]).output.contains("every invariant holds"))
        let diff = try runEasel(["replay", "--diff", logPath, server.databasePath, "--doc", "replay/bots"])
        #expect(diff.status == 0, "\(diff.output) \(diff.errors)")
        #expect(diff.output.contains("the same state at every position"))
    }

    /// A small history: ada places three entities and moves one; bo deletes
    /// the star at position `deletion`.
    private func writeLog(planting: ((inout [LoggedOp]) -> Void)? = nil) throws -> (
        path: String, star: EntityID, deletion: UInt64
    ) {
        var ada = Editor(replica: ReplicaID(rawValue: 0xADA))
        var bo = Editor(replica: ReplicaID(rawValue: 0xB0))
        var logged: [LoggedOp] = []
        func record(_ ops: [Op], by author: String) {
            for op in ops {
                logged.append(
                    LoggedOp(
                        position: UInt64(logged.count + 1), op: op, author: author,
                        receivedAt: 1_795_000_000_000 + Int64(logged.count) * 1000))
            }
        }
        record(try ada.perform(.place(.emoji("🍎", size: 40), at: Point(x: 50, y: 50))), by: "ada")
        record(try ada.perform(.place(.shape(.star, width: 80, height: 80), at: Point(x: 200, y: 50))), by: "ada")
        let star = try #require(ada.document.zOrder.last)
        record(try ada.perform(.place(.text("hello", font: "Menlo", size: 20), at: Point(x: 100, y: 150))), by: "ada")
        _ = try ada.send(.tap(at: Point(x: 50, y: 50)))
        _ = try ada.send(.dragBegan(at: Point(x: 50, y: 50)))
        record(try ada.send(.dragEnded(translation: Vector(dx: 30, dy: 0))), by: "ada")
        bo.receive(logged.map(\.op))
        _ = try bo.send(.tap(at: Point(x: 200, y: 50)))
        record(try bo.perform(.deleteSelection), by: "bo")
        let deletion = UInt64(logged.count)
        record(try ada.perform(.place(.emoji("🍐", size: 40), at: Point(x: 300, y: 300))), by: "ada")
        planting?(&logged)
        let lines =
            [OpLogJSON.encode(.header(.init(document: "replay/planted", epoch: Epoch(rawValue: 7))))]
            + logged.map { OpLogJSON.encode(.op($0)) }
        let path = temporaryDatabase() + ".jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return (path, star, deletion)
    }

    @Test func findNamesThePositionAndTheAuthorOfTheDeletion() throws {
        let log = try writeLog()
        let found = try runEasel(["replay", "--log", log.path, "--find", "missing \(log.star)"])
        #expect(found.status == 0, "\(found.errors)")
        #expect(
            found.output.contains("missing \(log.star) first holds at position \(log.deletion) (linear scan"),
            "\(found.output)")
        #expect(found.output.contains("bo  "), "\(found.output)")
        #expect(found.output.contains("delete \(log.star)"))
        let never = try runEasel(["replay", "--log", log.path, "--find", "count > 10"])
        #expect(never.status == 1)
        #expect(never.output.contains("never holds"))
        let bad = try runEasel(["replay", "--log", log.path, "--find", "sparkles"])
        #expect(bad.status == 1)
        #expect(bad.errors.contains("cannot read \"sparkles\""))
    }

    @Test func findNamesWhoTypedAndWhoDeletedAPieceOfText() throws {
        // Bo types " world" after ada's "hello", then deletes "lo w".
        var typedAndDeleted = 0
        let log = try writeLog { logged in
            var bo = Editor(replica: ReplicaID(rawValue: 0xB0))
            bo.receive(logged.map(\.op))
            guard let text = bo.document.zOrder.first(where: { bo.document.kind(of: $0) == .text }),
                var added = try? bo.perform(.replaceText(text, range: 5..<5, with: Array(" world".unicodeScalars))),
                let deleted = try? bo.perform(.replaceText(text, range: 3..<7, with: []))
            else { return }
            added += deleted
            typedAndDeleted = added.count
            for op in added {
                logged.append(LoggedOp(position: UInt64(logged.count + 1), op: op, author: "bo", receivedAt: 0))
            }
        }
        try #require(typedAndDeleted == 2)
        let typed = try runEasel(["replay", "--log", log.path, "--find", "typed helorld"])
        #expect(typed.status == 0, "\(typed.errors)")
        #expect(typed.output.contains("\"hel\" typed by ada (replica 0000000000000ada) at position 3"), "\(typed.output)")
        #expect(typed.output.contains("\"orld\" typed by bo (replica 00000000000000b0) at position 8"), "\(typed.output)")
        let deleted = try runEasel(["replay", "--log", log.path, "--find", "deleted \"lo w\""])
        #expect(deleted.status == 0, "\(deleted.errors)")
        #expect(deleted.output.contains("\"lo\" typed by ada"), "\(deleted.output)")
        #expect(deleted.output.contains("\" w\" typed by bo (replica 00000000000000b0) at position 8, deleted by bo (replica 00000000000000b0) at position 9"), "\(deleted.output)")
        let nowhere = try runEasel(["replay", "--log", log.path, "--find", "typed nowhere"])
        #expect(nowhere.status == 1 && nowhere.output.contains("no text holds typed \"nowhere\""))
    }

    @Test func checkReportsThePlantedFaultAtItsPosition() throws {
        let clean = try writeLog()
        #expect(try runEasel(["replay", "--log", clean.path, "--check"]).status == 0)
        // Position 3's op (a field of ada's apple) now scales it to zero.
        let planted = try writeLog { ops in
            ops[2].op.action = .set(ops[0].op.entity, .scale(0))
        }
        let check = try runEasel(["replay", "--log", planted.path, "--check"])
        #expect(check.status == 1)
        #expect(check.output.contains("the op at position 3 breaks an invariant"), "\(check.output)")
        #expect(check.output.contains("numbers in range: "), "\(check.output)")
        #expect(check.output.contains("scale=0.0 is outside"), "\(check.output)")
    }

    @Test func diffReportsThePositionAndTheFieldsWhereTwoLogsPart() throws {
        let original = try writeLog()
        let changed = try writeLog { ops in
            let index = ops.firstIndex { if case .set(_, .x) = $0.op.action { true } else { false } } ?? 0
            ops[index].op.action = .set(ops[index].op.entity, .x(999))
        }
        let diff = try runEasel(["replay", "--diff", original.path, changed.path])
        #expect(diff.status == 1)
        #expect(diff.output.contains("the states first differ after position"), "\(diff.output)")
        #expect(diff.output.contains("x 80 ≠ 999"), "\(diff.output)")
        #expect(diff.output.contains("the latest states differ too"))
        let same = try runEasel(["replay", "--diff", original.path, original.path])
        #expect(same.status == 0)
    }

    @Test func framesAreWrittenWithAnIndexPage() throws {
        let log = try writeLog()
        let folder = temporaryDatabase() + "-frames"
        let run = try runEasel(["replay", "--log", log.path, "--frames", folder, "--every", "2"])
        #expect(run.status == 0, "\(run.errors)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files.contains("index.html"))
        #expect(files.filter { $0.hasSuffix(".svg") }.count == files.count - 1)
        #expect(files.first == "frame-0.svg" || files.first == "frame-00.svg")
    }

    @Test func stepMovesForwardAndBackInATerminal() throws {
        let tmux = try #require(findTmux(), "tmux is needed for this test (.ci/setup installs it)")
        let log = try writeLog()
        let folder = temporaryDatabase() + "-screens"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // The keys go in through tmux, as a person's would. A script drives
        // it, so the tmux client and the server it starts are the script's
        // children, not the test's; the EXIT trap kills that tmux server,
        // on its own socket, however the script ends.
        let script = """
            set -u
            t() { "\(tmux.path)" -S "\(folder)/socket" "$@"; }
            trap 't kill-server 2>/dev/null' EXIT
            # Waits until the last prompt on the screen is $1 (and the screen
            # holds $3, when given), then keeps the screen in $2.
            screen() {
                for _ in $(seq 400); do
                    t capture-pane -p -t step > "\(folder)/$2"
                    if [ "$(grep '^\\[' "\(folder)/$2" | tail -n 1 | sed 's/ *$//')" = "$1" ] \
                        && { [ -z "${3:-}" ] || grep -qF -- "$3" "\(folder)/$2"; }; then
                        return 0
                    fi
                    sleep 0.05
                done
                return 1
            }
            # One key at a time, each after the prompt it answers: keys typed
            # ahead are echoed before the prompts they answer.
            key() { t send-keys -t step "$1" Enter; }
            t new-session -d -s step -x 200 -y 60 "\(try ServerProcess.executable().path) replay --log \(log.path) --step"
            screen '[0/7] >' start || exit 11
            key n; screen '[1/7] >' one || exit 12
            key n; screen '[2/7] >' two || exit 12
            key n; screen '[3/7] >' three || exit 12
            key b; screen '[2/7] >' stepped || exit 12
            key 'j 6'; screen '[6/7] >' jumped || exit 13
            key 's \(log.star)'; screen '[6/7] >' shown 'shape = star' || exit 13
            key 'b 6'; screen '[0/7] >' back || exit 14
            """
        let path = folder + "/drive.sh"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let status = try runWithDefaultSignals("/bin/bash", [path])
        func screen(_ name: String) -> String {
            (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? ""
        }
        #expect(
            status == 0,
            "stopped at step \(status): \(["start", "stepped", "shown", "back"].map(screen).joined(separator: "\n---\n"))"
        )
        let stepped = screen("stepped")
        #expect(stepped.contains("[3/7] > b"), "\(stepped)")
        #expect(stepped.contains("\n2  "), "the step back shows position 2 again: \(stepped)")
        let shown = screen("shown")
        #expect(shown.contains("shape = star"), "\(shown)")
        #expect(shown.contains("alive = false"), "at 6 bo has deleted the star: \(shown)")
        #expect(screen("back").contains("[6/7] > b 6"))
    }

    private func findTmux() -> URL? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].map(URL.init(fileURLWithPath:)).first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }
}

/// Runs a program to its end with every signal unblocked and at its
/// default, and returns its exit status. The test runner blocks signals its
/// children would inherit, and tmux waits for ever without them.
private func runWithDefaultSignals(_ path: String, _ arguments: [String]) throws -> Int32 {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, path, nil, &attributes, argv, environ)
    guard spawned == 0 else { throw ServerProcessError("cannot run \(path): error \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    // Exited normally: the status's high byte; otherwise 128 + the signal.
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

@Suite struct ReplayBlobCheckTests {
    @Test("replay --check names every blob the history refers to that the database lacks, and fails until it is stored")
    func checkReportsMissingBlobs() throws {
        let path = temporaryDatabase()
        let store = try OpStore(path: path)
        try store.createDocument("replay/images", epoch: Epoch(rawValue: 1), at: 0)
        let missing = BlobHash(bytes: [UInt8](repeating: 0xEF, count: 32))
        var editor = Editor(replica: ReplicaID(rawValue: 0xC3))
        let ops = try editor.perform(.place(.image(missing, width: 40, height: 30), at: Point(x: 50, y: 50)))
        try store.append(
            ops.enumerated().map { LoggedOp(position: UInt64($0 + 1), op: $1, author: "ada", receivedAt: 0) },
            to: "replay/images")
        let failing = try runEasel(["replay", "--db", path, "--doc", "replay/images", "--check"])
        #expect(failing.status == 1)
        #expect(failing.output.contains("the op at position 1 refers to blob \(missing), which the database lacks"))
        let blobs = try BlobStore(besideDatabase: path)
        let upload = try blobs.beginUpload(at: 0)
        try blobs.appendChunk([0xFF, 0xD8, 0xFF, 0], to: upload, sequence: 0)
        _ = try blobs.finishUpload(upload, as: missing, size: 4, type: .jpeg, document: "replay/images", at: 0)
        let passing = try runEasel(["replay", "--db", path, "--doc", "replay/images", "--check"])
        #expect(passing.status == 0, "\(passing.output)")
    }
}

@Suite struct ReplayCompactedTests {
    @Test("replay of a compacted document steps through every kept op, though a later snapshot exists")
    func replayStartsAtTheSnapshotTheCompactionKept() throws {
        let path = temporaryDatabase()
        let store = try OpStore(path: path)
        try store.createDocument("replay/compacted", epoch: Epoch(rawValue: 1), at: 0)
        var editor = Editor(replica: ReplicaID(rawValue: 0xC4))
        var ops: [Op] = []
        for index in 0..<6 {
            ops += try editor.perform(.place(.emoji("⭐", size: 40), at: Point(x: Float(index) * 40, y: 50)))
        }
        let logged = ops.enumerated().map { LoggedOp(position: UInt64($0 + 1), op: $1, author: "ada", receivedAt: 0) }
        let cut = logged.count / 2
        try store.append(Array(logged[..<cut]), to: "replay/compacted")
        try store.snapshot("replay/compacted", at: 0)
        try store.compact("replay/compacted")
        try store.append(Array(logged[cut...]), to: "replay/compacted")
        // As the server leaves a document it unloads.
        try store.snapshot("replay/compacted", at: 0)

        let printed = try runEasel(["replay", "--db", path, "--doc", "replay/compacted", "--print"])
        #expect(printed.status == 0, "\(printed.errors)")
        let steps = printed.output.split(separator: "\n")
        // The snapshot's line, then one a kept op.
        #expect(steps.count == 1 + logged.count - cut, "\(printed.output)")
    }
}
