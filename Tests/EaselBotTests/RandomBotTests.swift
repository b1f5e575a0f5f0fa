import EaselBot
import EaselBotScript
import EaselModel
import EaselProtocol
import EaselSync
import Testing

/// Random bots with no server: what their seed decides, what their mix
/// decides, and that what they do is editing the editor accepts.
@Suite struct RandomBotTests {
    private func client(replica: UInt64 = 0xB07) throws -> SyncClient {
        SyncClient(
            document: try DocumentName("bots/random"), user: UserInfo(name: "bot", initials: "B", color: .black),
            replica: ReplicaID(rawValue: replica), at: Timestamp(milliseconds: 0))
    }

    /// Runs `actions` steps, jumping the clock over every pause.
    private func run(_ bot: inout RandomBot, on client: inout SyncClient, steps: Int) throws -> [BotStep] {
        var now = Timestamp(milliseconds: 0)
        var taken: [BotStep] = []
        for _ in 0..<steps {
            let step = try bot.advance(&client, at: now)
            taken.append(step)
            switch step {
            case .wait(let until): now = until
            case .offline, .image: break
            case .finished: return taken
            }
        }
        return taken
    }

    @Test func theSameSeedFromTheSameDocumentMakesTheSameEdits() throws {
        for seed in [UInt64(1), 42, 0xDEAD_BEEF] {
            var first = RandomBot(seed: seed)
            var second = RandomBot(seed: seed)
            first.keepsHistory = true
            second.keepsHistory = true
            var one = try client()
            var two = try client()
            let firstSteps = try run(&first, on: &one, steps: 400)
            let secondSteps = try run(&second, on: &two, steps: 400)
            #expect(firstSteps == secondSteps)
            #expect(first.history == second.history)
            #expect(one.editor.document.stateHash == two.editor.document.stateHash)
            #expect(one.editor.document.visibleCount > 5)
        }
    }

    /// Pinned: a change to how a seed becomes edits (or to the reducers)
    /// shows here, not as a replay that quietly stops matching.
    @Test func aSeedMakesTheSameEditsOnEveryToolchain() throws {
        var bot = RandomBot(seed: 2026)
        bot.keepsHistory = true
        var client = try client()
        _ = try run(&bot, on: &client, steps: 200)
        guard case .draw(let points, .over(let seconds), nil)? = bot.history.first else {
            Issue.record("the first action is \(String(describing: bot.history.first)), not the pinned stroke")
            return
        }
        #expect(points.count == 13 && points[0] == Point(x: 791.6, y: 581.12) && seconds == 0.42)
        #expect(bot.history.count == 236)
        #expect(client.editor.document.stateHash.hex == "54fd5aff118d76f7")
    }

    @Test func theSameSeedOnAnotherReplicaMakesTheSameGestures() throws {
        var first = RandomBot(seed: 7)
        var second = RandomBot(seed: 7)
        first.keepsHistory = true
        second.keepsHistory = true
        var one = try client(replica: 1)
        var two = try client(replica: 2)
        _ = try run(&first, on: &one, steps: 300)
        _ = try run(&second, on: &two, steps: 300)
        #expect(first.history == second.history)
    }

    @Test func differentSeedsMakeDifferentEdits() throws {
        var first = RandomBot(seed: 1)
        var second = RandomBot(seed: 2)
        var one = try client()
        var two = try client()
        _ = try run(&first, on: &one, steps: 100)
        _ = try run(&second, on: &two, steps: 100)
        #expect(one.editor.document.stateHash != two.editor.document.stateHash)
    }

    @Test func everyKindOfActionIsUsedAndTheEditorAcceptsAlmostAllOfThem() throws {
        var bot = RandomBot(seed: 99)
        bot.keepsHistory = true
        var client = try client()
        _ = try run(&bot, on: &client, steps: 3000)
        let history = bot.history
        func uses(_ matches: (Action) -> Bool) -> Bool { history.contains(where: matches) }
        #expect(uses { if case .command(.place) = $0 { true } else { false } })
        #expect(uses { if case .tap = $0 { true } else { false } })
        #expect(uses { if case .drag = $0 { true } else { false } })
        #expect(uses { if case .pinch = $0 { true } else { false } })
        #expect(uses { if case .rotate = $0 { true } else { false } })
        #expect(uses { if case .draw = $0 { true } else { false } })
        #expect(uses { if case .typeInto(_, .some, nil) = $0 { true } else { false } })
        #expect(uses { if case .deleteCharacters = $0 { true } else { false } })
        #expect(uses { if case .command(.setStyle) = $0 { true } else { false } })
        #expect(uses { $0 == .command(.duplicateSelection) })
        #expect(uses { $0 == .command(.deleteSelection) })
        #expect(uses { [.command(.bringForward), .command(.sendBackward), .command(.bringToFront), .command(.sendToBack)].contains($0) })
        #expect(uses { $0 == .command(.undo) })
        #expect(uses { $0 == .command(.redo) })
        #expect(!uses { $0 == .command(.clearAll) }, "clear is off in the standard mix")
        #expect(bot.refusedCount * 50 < bot.actionCount, "\(bot.refusedCount) of \(bot.actionCount) refused")
        #expect(client.unacknowledgedCount > 1000)
    }

    @Test func theEntityLimitKeepsALongRunsDocumentBounded() throws {
        var bot = RandomBot(seed: 5, mix: RandomMix([.place: 1]))
        bot.entityLimit = 20
        var client = try client()
        _ = try run(&bot, on: &client, steps: 500)
        #expect(client.editor.document.visibleCount <= 20)
        #expect(client.editor.document.visibleCount >= 19)
    }

    @Test func theRateSetsTheMeanPauseBetweenActions() throws {
        var bot = RandomBot(seed: 3, actionsPerSecond: 10)
        var client = try client()
        let steps = try run(&bot, on: &client, steps: 2000)
        guard case .wait(let last)? = steps.last else {
            Issue.record("the bot stopped waiting")
            return
        }
        let mean = Double(last.rawValue) / Double(steps.count)
        #expect((85...115).contains(mean), "mean pause \(mean) ms at 10 actions a second")
    }

    @Test func aRandomBotStopsAtItsDeadline() throws {
        var bot = RandomBot(seed: 3, actionsPerSecond: 10, until: Timestamp(milliseconds: 5000))
        var client = try client()
        let steps = try run(&bot, on: &client, steps: 10_000)
        #expect(steps.last == .finished)
        #expect((30...80).contains(steps.count))
    }

    @Test func offlineInTheMixHandsTheHostAReconnectTime() throws {
        var bot = RandomBot(seed: 11, mix: try RandomMix(parsing: "offline=1"))
        var client = try client()
        let steps = try run(&bot, on: &client, steps: 300)
        // Each offline step comes right after the wait before it, at that time.
        var now: Int64 = 0
        var periods: [Int64] = []
        for step in steps {
            switch step {
            case .wait(let until): now = until.rawValue
            case .offline(let reconnectAt): periods.append(reconnectAt.rawValue - now)
            case .image, .finished: break
            }
        }
        #expect(periods.count > 3)
        #expect(periods.allSatisfy { (500...3000).contains($0) }, "\(periods)")
    }

    @Test func aMixIsWrittenAsKindEqualsWeightAndMistakesAreNamed() throws {
        let mix = try RandomMix(parsing: "offline=2, clear=1,place=0")
        #expect(mix.weights[.offline] == 2)
        #expect(mix.weights[.clear] == 1)
        #expect(mix.weights[.place] == nil)
        #expect(mix.weights[.drag] == RandomMix.standard.weights[.drag])
        #expect(throws: MixError.self) { try RandomMix(parsing: "jump=1") }
        #expect(throws: MixError.self) { try RandomMix(parsing: "drag=lots") }
        #expect(throws: MixError.self) { try RandomMix(parsing: "drag") }
        let everythingOff = RandomMix.Kind.allCases.map { "\($0.rawValue)=0" }.joined(separator: ",")
        #expect(throws: MixError.self) { try RandomMix(parsing: everythingOff) }
        do {
            _ = try RandomMix(parsing: "jump=1")
        } catch {
            #expect(error.description.contains("\"jump\" is not an action"))
        }
    }
}
