import EaselBot
import EaselBotScript
import EaselModel
import Testing

@Suite struct ScriptParserTests {
    private func failure(_ script: String) -> ScriptError? {
        do {
            _ = try ScriptParser.parse(script)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyStatementOfTheLanguageParses() throws {
        let script = try ScriptParser.parse(
            """
            // a comment, and a blank line

            place emoji "⭐" at 100 200 size 48
            place shape star at 10 10 size 80 60
            place text "hello" at 0 0 font "Menlo" size 18
            place image \(String(repeating: "ab", count: 32)) at 5 5 size 20 10
            tap 100 200
            drag 100 200 by 30 -10 steps 6
            pinch 100 200 to 1.5
            rotate by 0.5 steps 2
            tool neon color #ff00ff weight 6
            draw through 0 0, 10 10, 20 5 over 300ms
            type "hi"
            set color #112233ff
            set style outlined
            set align center
            repeat 3
              duplicate
            end
            forward
            backward
            delete
            undo
            redo
            clear
            wait 1.5s
            offline 2s
            expect count 0
            expect hash 0123456789abcdef
            expect selected color #112233ff
            """)
        #expect(script.statements.count == 26)
        #expect(
            script.statements[1].action
                == .command(.place(.shape(.star, width: 80, height: 60), at: Point(x: 10, y: 10))))
        #expect(script.statements[5].location == SourceLocation(line: 8, column: 1))
        guard case .repeatBlock(let times, let body) = script.statements[14].action else {
            Issue.record("no repeat block: \(script.statements[14])")
            return
        }
        #expect(times == 3)
        #expect(body.map(\.action) == [.command(.duplicateSelection)])
        #expect(script.statements[21].action == .wait(milliseconds: 1500))
    }

    @Test func theFourOrderVerbsNameTheFourZOrderCommands() throws {
        let script = try ScriptParser.parse("forward\nbackward\nfront\nback\n")
        #expect(
            script.statements.map(\.action) == [
                .command(.bringForward), .command(.sendBackward), .command(.bringToFront), .command(.sendToBack),
            ])
    }

    @Test func imageFilesArePlacedOrMadeTheBackgroundAndTheFitIsOneOfThree() throws {
        let script = try ScriptParser.parse(
            """
            place image "photos/cat.png" at 10 20
            place image "photos/cat.png" at 10 20 size 300 200
            background image "paper.jpg"
            background image "paper.jpg" fit stretch
            """)
        #expect(
            script.statements.map(\.action) == [
                .image(file: "photos/cat.png", use: .place(at: Point(x: 10, y: 20), size: nil)),
                .image(
                    file: "photos/cat.png", use: .place(at: Point(x: 10, y: 20), size: ImageSize(width: 300, height: 200))),
                .image(file: "paper.jpg", use: .background(.contain)),
                .image(file: "paper.jpg", use: .background(.stretch)),
            ])
        #expect(failure("background image \"paper.jpg\" fit tile")?.description.contains("contain, cover or stretch") == true)
    }

    @Test func erasingInEachModeLassoingAndShapesByTapOrDragParse() throws {
        let script = try ScriptParser.parse(
            """
            erase pixels through 1 2, 3 4
            erase objects through 5 6, 7 8, 9 10 weight 12
            erase blur through 0 0, 10 0 at 250 weight 30
            lasso through 0 0, 100 0, 50 80
            shape bubble from 10 20 to 130 90
            shape star at 5 6
            """)
        #expect(
            script.statements.map(\.action) == [
                .erase(.pixels, through: [Point(x: 1, y: 2), Point(x: 3, y: 4)], speed: 400, weight: nil),
                .erase(
                    .objects, through: [Point(x: 5, y: 6), Point(x: 7, y: 8), Point(x: 9, y: 10)], speed: 400,
                    weight: 12),
                .erase(.blur, through: [Point(x: 0, y: 0), Point(x: 10, y: 0)], speed: 250, weight: 30),
                .lasso(through: [Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 50, y: 80)]),
                .shape(.bubble, from: Point(x: 10, y: 20), to: Point(x: 130, y: 90)),
                .shape(.star, from: Point(x: 5, y: 6), to: nil),
            ])
    }

    @Test func aBadEraseLassoOrShapeIsRejectedWhereItGoesWrong() {
        let cases: [(script: String, line: Int, column: Int, says: String)] = [
            ("erase smudge through 1 1", 1, 7, "smudge is not pixels, objects or blur"),
            ("lasso 1 1, 2 2", 1, 7, "expected 'through'"),
            ("shape ellipse from 1 1 2 2", 1, 24, "expected 'to'"),
        ]
        for (script, line, column, says) in cases {
            let error = failure(script)
            #expect(
                error?.location == SourceLocation(line: line, column: column), "\(script): \(String(describing: error))"
            )
            #expect(error?.message.contains(says) == true, "\(script): \(String(describing: error))")
        }
    }

    @Test func aBadScriptIsRejectedWithTheLineAndColumnOfWhatIsWrong() {
        let cases: [(script: String, line: Int, column: Int, says: String)] = [
            ("tap 1 2\nfly 3 4", 2, 1, "unknown statement fly"),
            ("place emoji \"⭐\" at 1 x", 1, 22, "x is not a y coordinate"),
            ("tap 1 2 3", 1, 9, "unexpected 3"),
            ("  set color red", 1, 13, "red is not a colour"),
            ("place shape hexagon at 1 1", 1, 13, "hexagon is not a shape"),
            ("repeat 2\n  tap 1 1", 1, 1, "this repeat has no end"),
            ("end", 1, 1, "end without a repeat"),
            ("wait soon", 1, 6, "soon is not a duration"),
            ("type \"unclosed", 1, 6, "no closing quote"),
            ("pinch 1 1 to 0", 1, 14, "0 is not a scale factor"),
            ("drag 1 1", 1, 9, "expected 'by'"),
        ]
        for (script, line, column, says) in cases {
            let error = failure(script)
            #expect(
                error?.location == SourceLocation(line: line, column: column), "\(script): \(String(describing: error))"
            )
            #expect(error?.message.contains(says) == true, "\(script): \(String(describing: error))")
        }
    }

    /// A fuzzer's finding: a point 3e33 away made a draw of millions of
    /// samples, and the bot ran out of memory.
    @Test func aDrawOrEraseThatWouldLastOverAMinuteIsRejectedAtItsStatement() throws {
        let cases: [(script: String, column: Int, says: String)] = [
            ("erase objects through 0 0, 0 3244444444444444444444444444444445", 1, "would last practically forever"),
            ("draw through 0 0, 6100 0 at 100", 1, "this one would last 61 s"),
            ("  erase pixels through 0 0, 100 0 at 1", 3, "lasts at most 60 s; this one would last 100 s"),
            ("draw through 0 0, 10 10 over 2m", 1, "this one would last 120 s"),
        ]
        for (script, column, says) in cases {
            let error = failure(script)
            #expect(error?.location == SourceLocation(line: 1, column: column), "\(script): \(String(describing: error))")
            #expect(error?.message.contains(says) == true, "\(script): \(String(describing: error))")
        }
        _ = try ScriptParser.parse("draw through 0 0, 5900 0 at 100\nerase blur through 0 0, 10 0 at 1")
    }
}
