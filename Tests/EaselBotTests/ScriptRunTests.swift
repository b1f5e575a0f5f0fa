import EaselBot
import EaselBotScript
import EaselModel
import EaselProtocol
import EaselSync
import Testing

/// Scripts run on a client engine with no server and no clock: the
/// document they build, their waits, and their assertions.
@Suite struct ScriptRunTests {
    private func client() throws -> SyncClient {
        SyncClient(
            document: try DocumentName("bots/one"), user: UserInfo(name: "bot", initials: "B", color: .black),
            replica: ReplicaID(rawValue: 0xB07), at: Timestamp(milliseconds: 0))
    }

    /// Runs to the end, passing every wait at once; offline periods do not
    /// hold the script up.
    private func run(_ text: String, on client: inout SyncClient) throws -> [BotStep] {
        var run = ScriptRun(try ScriptParser.parse(text))
        var now = Timestamp(milliseconds: 0)
        var steps: [BotStep] = []
        while true {
            let step = try run.advance(&client, at: now)
            steps.append(step)
            switch step {
            case .wait(let until): now = until
            case .offline, .image: break
            case .finished: return steps
            }
        }
    }

    @Test func aScriptBuildsItsDocumentThroughTheEditorAndItsAssertionsPass() throws {
        var client = try client()
        let steps = try run(
            """
            place emoji "🍎" at 100 100
            tap 100 100
            set color #ff0000ff
            expect selected color #ff0000ff
            drag 100 100 by 50 0
            expect selected x 150
            repeat 2
              duplicate
            end
            expect count 3
            place text "draft" at 300 300
            tap 900 900
            tap 300 300
            type "final"
            set style framed
            expect selected text final
            expect selected style framed
            tool marker weight 8
            draw through 0 0, 40 0, 80 10 over 200ms
            wait 100ms
            tap 900 900
            tap 300 300
            delete
            expect count 4
            undo
            expect count 5
            """, on: &client)
        #expect(steps == [.wait(until: Timestamp(milliseconds: 100)), .finished])
        #expect(client.editor.document.visibleCount == 5)
        #expect(client.unacknowledged.count > 0)
    }

    @Test func theBackgroundVerbSetsTheDocumentsColourAndTakesItsImageAway() throws {
        var client = try client()
        _ = try run(
            """
            background #f0e6c8
            background none
            """, on: &client)
        #expect(client.editor.document.background == Background(color: Color(red: 0xF0, green: 0xE6, blue: 0xC8)))
        #expect(client.unacknowledged.map(\.entity) == [.document, .document])
        #expect(throws: ScriptError.self) { try ScriptParser.parse("background purple") }
    }

    @Test func theSameScriptBuildsTheSameDocumentEveryTime() throws {
        let script = """
            place shape ellipse at 10 20 size 30 40
            pinch 10 20 to 2
            rotate by 0.25
            place emoji "🌵" at 200 50
            backward
            """
        var first = try client()
        var second = try client()
        _ = try run(script, on: &first)
        _ = try run(script, on: &second)
        #expect(first.editor.document.stateHash == second.editor.document.stateHash)
        let hash = first.editor.document.stateHash
        var third = try client()
        _ = try run(script + "\nexpect hash \(hash.hex)\nexpect hash \(hash.emojiKey)", on: &third)
    }

    @Test func aFailedAssertionNamesItsLineAndWhatItFound() throws {
        var client = try client()
        #expect {
            try run("place emoji \"🍋\" at 1 1\nexpect count 2", on: &client)
        } throws: { error in
            let error = error as? ScriptError
            return error?.location == SourceLocation(line: 2, column: 1) && error?.message.contains("found 1") == true
        }
    }

    @Test func typingWithoutOneSelectedTextEntityFailsAtItsLine() throws {
        var client = try client()
        #expect {
            try run("place emoji \"🍋\" at 1 1\n\ntype \"x\"", on: &client)
        } throws: { error in
            (error as? ScriptError)?.location == SourceLocation(line: 3, column: 1)
        }
    }

    @Test func offlineHandsTheHostTheTimeToReconnectAndTheBotKeepsEditingMeanwhile() throws {
        var client = try client()
        let steps = try run("wait 1s\noffline 5s\nplace emoji \"🛰\" at 0 0\nexpect count 1", on: &client)
        #expect(
            steps == [
                .wait(until: Timestamp(milliseconds: 1000)), .offline(reconnectAt: Timestamp(milliseconds: 6000)),
                .finished,
            ])
        #expect(client.unacknowledgedCount == 1)
    }
}

@Suite struct ScriptTypingTests {
    private func client() throws -> SyncClient {
        SyncClient(
            document: try DocumentName("bots/typing"), user: UserInfo(name: "bot", initials: "B", color: .black),
            replica: ReplicaID(rawValue: 0xB08), at: Timestamp(milliseconds: 0))
    }

    @Test func typeIntoTypesAKeyAtATimeAtItsPaceAsCharacterOpsAndDeleteCharactersDeletesARange() throws {
        var client = try client()
        var run = ScriptRun(
            try ScriptParser.parse(
                """
                place text "ab" at 300 300
                tap 900 900
                tap 300 300
                type "xyz" into selected after 1 at 10 chars/s
                expect selected text axyzb
                delete characters 0 to 2
                type "!" into selected
                expect selected text yzb!
                """))
        var now = Timestamp(milliseconds: 0)
        var waits: [Int64] = []
        while true {
            let step = try run.advance(&client, at: now)
            guard case .wait(let until) = step else {
                #expect(step == .finished)
                break
            }
            waits.append(until.rawValue - now.rawValue)
            now = until
        }
        #expect(waits == [100, 100], "three keys at 10 a second: two waits of 100 ms")
        // Offline, the outbox joins the keys typed on into one op (Op.join).
        let pushed = client.unacknowledged
        let inserts = pushed.compactMap { if case .insertText(_, let typed) = $0.action { Array(typed.scalars) } else { nil } }
        #expect(inserts == [Array("xyz".unicodeScalars), ["!"]])
        #expect(pushed.contains { if case .deleteText = $0.action { true } else { false } })
    }

    @Test func typingVerbsRefuseAZeroPaceAndARangeThatRunsBackwards() {
        #expect(throws: ScriptError.self) { try ScriptParser.parse("type \"x\" into selected at 0 chars/s") }
        #expect(throws: ScriptError.self) { try ScriptParser.parse("type \"x\" into selected at 5") }
        #expect(throws: ScriptError.self) { try ScriptParser.parse("delete characters 5 to 2") }
        #expect(throws: ScriptError.self) { try ScriptParser.parse("type \"x\" into nothing") }
    }
}
