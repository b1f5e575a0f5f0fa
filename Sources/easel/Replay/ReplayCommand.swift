import ArgumentParser
import EaselModel
import EaselProtocol
import EaselReplay
import EaselStore
import Foundation

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Step through a document's op log: print, step, check, find, diff, or render frames.",
        discussion: """
            The history comes from a database (--db F --doc D) or a JSON Lines log (--log FILE, as
            easel log export writes). With no mode, prints the state at the end. Docs/debugging.md
            walks through a session. Examples:

              easel replay --db easel.db --doc team/board --print
              easel replay --log board.jsonl --find 'missing e12@9c0ffee000000001'
              easel replay --log board.jsonl --find 'deleted "from Ann"'
              easel replay --log board.jsonl --check
              easel replay --diff yesterday.jsonl easel.db --doc team/board
              easel replay --log board.jsonl --frames frames/ --every 10
            """)

    @Option(help: "The SQLite database file to read the history from (with --doc).") var db: String?
    @Option(help: "The document (in a database).") var doc: String?
    @Option(help: "A JSON Lines log to read the history from.") var log: String?
    @Option(help: "Stop after the op at this position.") var until: UInt64?

    @Flag(help: "Print one line per op: position, received, author, entities, state hash, emoji key, op.")
    var print = false
    @Flag(help: "Step interactively: next, back, jump, show an entity (h for help).") var step = false
    @Option(help: "Write SVG frames and an index.html filmstrip into this folder.") var frames: String?
    @Option(help: "With --frames: a frame every N ops (and the last).") var every = 1
    @Flag(help: "Check invariants after every op; report the first op that breaks one.") var check = false
    @Option(
        help: """
            The first position where a predicate holds, e.g. 'missing ID', 'ID.x > 100', 'count > 50'; or who \
            typed or deleted a piece of text: 'typed "from Ann"', 'deleted "from Ann"'.
            """)
    var find: String?
    @Option(
        parsing: .upToNextOption,
        help: "Compare two histories (logs or databases): the first position whose states differ.")
    var diff: [String] = []

    func validate() throws {
        let modes = [print, step, frames != nil, check, find != nil, !diff.isEmpty].filter { $0 }.count
        guard modes <= 1 else {
            throw ValidationError("choose one of --print, --step, --frames, --check, --find and --diff")
        }
        if !diff.isEmpty {
            guard diff.count == 2 else { throw ValidationError("--diff takes two histories: --diff A B") }
            guard db == nil, log == nil else { throw ValidationError("--diff names both histories itself") }
        } else {
            guard (db == nil) != (log == nil) else {
                throw ValidationError("read the history from --db FILE --doc NAME or from --log FILE")
            }
            if db != nil, doc == nil { throw ValidationError("--db needs --doc") }
        }
        if frames == nil, every != 1 { throw ValidationError("--every goes with --frames") }
    }

    func run() throws {
        if !diff.isEmpty { return try runDiff() }
        let history =
            try log.map { try HistorySource.load(path: $0, document: nil) }
            ?? HistorySource.loadDatabase(path: db ?? "", document: doc)
        if let until { try history.checkReachable(until) }
        if print {
            try printSteps(history)
        } else if step {
            var session = StepSession(history: history, until: until)
            session.run()
        } else if let frames {
            try writeFrames(history, to: frames)
        } else if check {
            try runCheck(history)
        } else if let find {
            try runFind(history, find)
        } else {
            let document = try history.document(at: until)
            let position = until ?? history.head
            Swift.print("\(history.name): \(describe(history, through: position)); at \(position):")
            Swift.print(
                "  \(document.visibleCount) entities, state \(document.stateHash.hex) \(document.stateHash.emojiKey)")
        }
    }

    private func describe(_ history: OpHistory, through position: UInt64) -> String {
        let count = history.ops.prefix { $0.position <= position }.count
        let start = history.base.map { "from a snapshot at \($0.position), " } ?? ""
        return "\(start)\(count) ops replayed"
    }

    private func printSteps(_ history: OpHistory) throws {
        let last = until ?? history.head
        let line = StepLine(for: history)
        var document = history.baseDocument
        Swift.print(line.line(history.earliest, nil, document))
        for logged in history.ops where logged.position <= last {
            document.apply(logged.op)
            Swift.print(line.line(logged.position, logged, document))
        }
    }

    private func writeFrames(_ history: OpHistory, to folder: String) throws {
        let strip = try Filmstrip(history, every: every, until: until)
        let directory = URL(fileURLWithPath: folder, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for frame in strip.frames {
                try Data(frame.svg.utf8).write(to: directory.appendingPathComponent(frame.fileName))
            }
            try Data(strip.indexHTML.utf8).write(to: directory.appendingPathComponent("index.html"))
        } catch {
            throw CommandError("cannot write frames into \(folder): \(error.localizedDescription)")
        }
        Swift.print(
            "wrote \(strip.frames.count) frames (positions \(strip.frames.first?.position ?? 0)…\(strip.frames.last?.position ?? 0)) and index.html into \(folder)"
        )
    }

    private func runCheck(_ history: OpHistory) throws {
        let report = try history.check(until: until)
        let missingBlobs = try checkBlobs(history)
        guard let first = report.first else {
            Swift.print("\(history.name): \(report.checked) ops checked, every invariant holds")
            if !missingBlobs.isEmpty { throw ExitCode(1) }
            return
        }
        let line = StepLine(for: history)
        Swift.print("\(history.name): the op at position \(first.position) breaks an invariant:")
        let document = try history.document(at: first.position)
        Swift.print("  " + line.line(first.position, history.op(at: first.position), document))
        for violation in report.violations where violation.position == first.position {
            Swift.print("  \(violation)")
        }
        let atFirst = report.violations.filter { $0.position == first.position }.count
        if report.total > atFirst { Swift.print("  and \(report.total - atFirst) more broken rules later in the log") }
        throw ExitCode(1)
    }

    /// With a database: every blob the history refers to (through --until)
    /// that the database does not hold for the document, printed with the
    /// first position that refers to it.
    private func checkBlobs(_ history: OpHistory) throws -> [BlobHash] {
        guard let db, let doc else { return [] }
        var firstUse: [BlobHash: UInt64] = [:]
        func note(_ op: Op, at position: UInt64) {
            op.forEachBlob { hash in if firstUse[hash] == nil { firstUse[hash] = position } }
        }
        if let base = history.base { for op in base.state { note(op, at: base.position) } }
        for logged in history.ops where logged.position <= (until ?? history.head) { note(logged.op, at: logged.position) }
        let store = try BlobStore.reading(besideDatabase: db)
        var missing: [BlobHash] = []
        for (hash, position) in firstUse.sorted(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
            if let store, try store.blobInfo(hash, document: doc) != nil { continue }
            missing.append(hash)
            Swift.print("\(history.name): the op at position \(position) refers to blob \(hash), which the database lacks")
        }
        return missing
    }

    private func runFind(_ history: OpHistory, _ text: String) throws {
        if let search = try TextFind(parsing: text) { return try runTextFind(history, search) }
        let predicate = try Predicate(parsing: text)
        var timeline = Timeline(history)
        let result = try timeline.find(predicate, until: until)
        let how = "\(result.strategy.rawValue), \(result.evaluations) states tested"
        guard let position = result.position else {
            Swift.print("\(history.name): \(predicate) never holds up to \(until ?? history.head) (\(how))")
            throw ExitCode(1)
        }
        Swift.print("\(history.name): \(predicate) first holds at position \(position) (\(how))")
        let document = try timeline.document(at: position)
        Swift.print("  " + StepLine(for: history).line(position, history.op(at: position), document))
    }

    /// Who typed (and deleted) the characters of a piece of text, as the
    /// state at `--until` (or the end) holds them.
    private func runTextFind(_ history: OpHistory, _ search: TextFind) throws {
        let position = until ?? history.head
        let document = try history.document(at: until)
        let findings = search.findings(in: document, ops: history.ops.filter { $0.position <= position })
        let among = search.kind == .typed ? "characters" : "deleted characters"
        guard !findings.isEmpty else {
            Swift.print("\(history.name): no text holds \(search) at position \(position)")
            throw ExitCode(1)
        }
        for finding in findings {
            Swift.print(
                "\(history.name): \(search) in text \(finding.text), from its \(among) at \(finding.index), at \(position):")
            for part in finding.parts {
                var line = "  \(part.text.debugDescription) typed "
                line += part.typed.map { "by \($0.author) (replica \($0.replica)) at position \($0.position)" }
                    ?? "before the history's first op"
                if let deleted = part.deleted {
                    line += ", deleted by \(deleted.author) (replica \(deleted.replica)) at position \(deleted.position)"
                }
                Swift.print(line)
            }
        }
    }

    private func runDiff() throws {
        let left = try HistorySource.load(path: diff[0], document: doc)
        let right = try HistorySource.load(path: diff[1], document: doc)
        let result = try HistoryDiff(left, right)
        let heads = "heads \(result.leftHead) and \(result.rightHead)"
        switch result.outcome {
        case .same(let through):
            Swift.print("the histories give the same state at every position through \(through) (\(heads))")
            if result.leftHead != result.rightHead {
                Swift.print("  \(result.leftHead > result.rightHead ? diff[0] : diff[1]) goes on after \(through)")
            }
            if !result.headsAgree { throw ExitCode(1) }
        case .differ(let position, let leftOp, let rightOp, let differences):
            Swift.print("the states first differ after position \(position) (\(heads)):")
            Swift.print("  A \(diff[0]): " + (leftOp.map { "\($0.author): \($0.op.summary)" } ?? "(no op)"))
            Swift.print("  B \(diff[1]): " + (rightOp.map { "\($0.author): \($0.op.summary)" } ?? "(no op)"))
            for difference in differences.prefix(20) { Swift.print("  \(difference)") }
            if differences.count > 20 { Swift.print("  and \(differences.count - 20) more entities") }
            Swift.print(result.headsAgree ? "  the latest states agree again" : "  the latest states differ too")
            throw ExitCode(1)
        }
    }
}
