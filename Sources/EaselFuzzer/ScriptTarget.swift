import EaselBotScript
import EaselModel
import EaselProtocol
import EaselSync

extension FuzzTarget {
    /// A bot script is a file someone wrote: it parses or says where it is
    /// wrong, and what parses runs through the editor's gestures and
    /// commands (numbers of any size included) without trapping.
    static let script = FuzzTarget(
        name: "script",
        property: """
            any text parses to a script or to an error at a line and column inside it, and a parsed script \
            of up to 2,000 statements run (repeats multiplied out) runs offline on a sync client to its end, or \
            stops with an error, without trapping
            """,
        check: { input in
            let text = String(decoding: input, as: UTF8.self)
            let script: BotScript
            do throws(ScriptError) {
                script = try ScriptParser.parse(text)
            } catch {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
                precondition(
                    (1...max(lines, 1)).contains(error.location.line) && error.location.column >= 1,
                    "an error outside the text (\(lines) lines): \(error)")
                return
            }
            // Parsed in full; run only when its repeats come to a bounded
            // number of statements (a bot may rightly run a million edits,
            // but not within one fuzzer's input).
            if statementsRun(script.statements) <= 2_000 { run(script) }
        },
        seeds: { sources in
            try Vectors.files(in: sources.scripts).filter { $0.hasSuffix(".easel") }.map { path in
                (String(path.split(separator: "/").last ?? "script"), try Vectors.contents(of: path))
            }
        })

    /// How many statements a script runs, repeats multiplied out (capped).
    private static func statementsRun(_ statements: [Statement]) -> Int {
        statements.reduce(0) { total, statement in
            guard case .repeatBlock(let times, let body) = statement.action else { return min(total + 1, 1 << 40) }
            return min(total + times * statementsRun(body), 1 << 40)
        }
    }

    /// Steps a script offline the way a bot's host does, with a bound on
    /// steps so a script that waits forever still ends the check.
    private static func run(_ script: BotScript) {
        guard let document = try? DocumentName("fuzz/script") else { return }
        var client = SyncClient(
            document: document, user: UserInfo(name: "fuzz", initials: "F", color: .black),
            replica: ReplicaID(rawValue: 0xF0), at: Timestamp(milliseconds: 0))
        var run = ScriptRun(script)
        var now = Timestamp(milliseconds: 0)
        for _ in 0..<10_000 {
            guard let step = try? run.advance(&client, at: now) else { return }
            switch step {
            case .wait(let until): now = max(now, until)
            case .offline, .image: continue
            case .finished: return
            }
        }
    }
}
