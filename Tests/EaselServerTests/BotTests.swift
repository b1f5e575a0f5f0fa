import EaselBot
import EaselBotScript
import EaselClient
import EaselModel
import EaselProtocol
import EaselStore
import EaselSync
import Foundation
import Testing

/// `easel bot` against a real `easel serve` on 127.0.0.1: scripts, random
/// co-editing with offline periods, a server killed mid-run, and a script
/// that cannot run. Every test stops its server.
@Suite("easel bot", .serialized)
struct BotTests {
    private let stillLife = ServerProcess.packageRoot.appendingPathComponent("examples/bots/still-life.easel").path

    @Test func aScriptedBotBuildsTheKnownDocumentItsAssertionsPassAndTheServerHasItsHash() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        // The document the script builds, worked out with no server at all.
        var offline = SyncClient(
            document: try DocumentName("bots/still-life"), user: UserInfo(name: "bot", initials: "B", color: .black),
            replica: ReplicaID(rawValue: 0xB1), at: Timestamp(milliseconds: 0))
        var script = ScriptRun(try ScriptParser.parse(String(contentsOfFile: stillLife, encoding: .utf8)))
        while true {
            let step = try script.advance(&offline, at: Timestamp(milliseconds: 0))
            if step == .finished { break }
        }
        let expected = offline.editor.document.stateHash

        let run = try runEasel([
            "bot", "--url", "ws://127.0.0.1:\(server.port)", "--doc", "bots/still-life", "--script", stillLife,
            "--replica", "00000000000000b1",
        ])
        #expect(run.status == 0, "\(run.output) \(run.errors)")
        #expect(run.output.contains("1 finished"))
        #expect(run.output.contains("converged"))
        #expect(run.output.contains("state \(expected.hex) \(expected.emojiKey)"))
        #expect(try readServer(port: server.port, document: "bots/still-life").hash == expected)
    }

    @Test func aFailedAssertionFailsTheRunWithItsLineAndColumn() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let script = try writeScript("place emoji \"🍎\" at 10 10\n\n  expect count 2\n")
        let run = try runEasel([
            "bot", "--url", "ws://127.0.0.1:\(server.port)", "--doc", "bots/fails", "--script", script,
        ])
        #expect(run.status == 1)
        #expect(run.output.contains("bot-1: line 3, column 3: expected 2 entities, found 1"), "\(run.output)")
        // What it did before the failure still reached the server.
        #expect(run.output.contains("converged"))
    }

    @Test func aBadScriptFailsWithLineAndColumnAndSendsNothing() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let script = try writeScript("place emoji \"🍎\" at 10 10\ntap 10\ndrag 10 10 by x 0\n")
        let run = try runEasel([
            "bot", "--url", "ws://127.0.0.1:\(server.port)", "--doc", "bots/bad", "--script", script,
        ])
        #expect(run.status == 2)
        #expect(run.errors.contains("\(script): line 2, column 7:"), "\(run.errors)")
        #expect(run.output.isEmpty)
        #expect(try OpStore(path: server.databasePath).documentInfo("bots/bad") == nil)
        #expect(try readServer(port: server.port, document: "bots/bad").entities == 0)
    }

    @Test func fiveRandomBotsWithOfflinePeriodsConvergeWithTheServer() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let report = temporaryDatabase() + ".json"
        let run = try runEasel([
            "bot", "--url", "ws://127.0.0.1:\(server.port)", "--doc", "bots/crowd", "--random", "--bots", "5",
            "--duration", "6s", "--rate", "8", "--seed", "2026", "--mix", "offline=3", "--report", report,
        ])
        #expect(run.status == 0, "\(run.output) \(run.errors)")
        let outcome = try BotReport(path: report)
        #expect(outcome.verdict == "converged")
        #expect(outcome.bots.count == 5)
        #expect(outcome.bots.allSatisfy { $0.opsMade > 0 && $0.opsMade == $0.opsAcknowledged })
        #expect(outcome.bots.reduce(0) { $0 + $1.offlinePeriods } >= 3)
        // A client of the test's own reads the same state as every bot.
        let server_ = try readServer(port: server.port, document: "bots/crowd")
        #expect(outcome.serverStateHash == server_.hash.hex)
        #expect(outcome.bots.allSatisfy { $0.stateHash == server_.hash.description })
        try expectEveryAcknowledgedOpStored(outcome, database: server.databasePath, document: "bots/crowd")
    }

    @Test func randomBotsTypingIntoSharedTextsAtOnceLeaveEveryAcknowledgedCharacterWhereTheCRDTSays() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let report = temporaryDatabase() + ".json"
        let run = try runEasel([
            "bot", "--url", "ws://127.0.0.1:\(server.port)", "--doc", "bots/typists", "--random", "--bots", "4",
            "--duration", "5s", "--rate", "12", "--seed", "31", "--mix", "type=40,place=4,offline=1,clear=0",
            "--report", report,
        ])
        #expect(run.status == 0, "\(run.output) \(run.errors)")
        let outcome = try BotReport(path: report)
        #expect(outcome.verdict == "converged")
        #expect(outcome.misplacedCharacters.isEmpty, "\(outcome.misplacedCharacters)")
        #expect(outcome.charactersChecked > 200, "\(outcome.charactersChecked) characters typed")
        #expect(run.output.contains("each where the CRDT puts it"), "\(run.output)")
    }

    @Test func botsRideThroughASigkilledServerAndNoAcknowledgedOpIsMissing() throws {
        let database = temporaryDatabase()
        var server = try ServerProcess(database: database)
        defer { server.kill() }
        let port = server.port
        let report = database + ".json"
        let bots = try EaselChild([
            "bot", "--url", "ws://127.0.0.1:\(port)", "--doc", "bots/restart", "--random", "--bots", "5",
            "--duration", "8s", "--rate", "10", "--seed", "7", "--report", report,
        ])
        // Kill it only once every bot has ops in the database: mid-run.
        let store = try OpStore(path: database)
        let editing = try waitUntil(seconds: 30) {
            guard try store.documentInfo("bots/restart") != nil else { return false }
            return Set(try store.ops(of: "bots/restart", after: 0).map(\.op.id.replica)).count == 5
        }
        try #require(editing, "the bots never all got to editing")
        server.kill()
        Thread.sleep(forTimeInterval: 1)
        server = try restart(database: database, port: port)
        let run = bots.wait()
        #expect(run.status == 0, "\(run.output) \(run.errors)")
        let outcome = try BotReport(path: report)
        #expect(outcome.verdict == "converged")
        #expect(outcome.bots.allSatisfy { $0.connections >= 2 }, "every bot reconnected after the kill")
        #expect(outcome.bots.allSatisfy { $0.opsMade == $0.opsAcknowledged })
        #expect(try readServer(port: port, document: "bots/restart").hash.hex == outcome.serverStateHash)
        server.kill()
        try expectEveryAcknowledgedOpStored(outcome, database: database, document: "bots/restart")
    }

    // MARK: Helpers

    /// Every bot's acknowledged ops are in the database: as many as it saw
    /// acknowledged, up to the highest counter it saw acknowledged.
    private func expectEveryAcknowledgedOpStored(_ outcome: BotReport, database: String, document: String) throws {
        let stored = try OpStore(path: database).ops(of: document, after: 0)
        var byReplica: [String: (count: Int, highest: UInt64)] = [:]
        for op in stored {
            let id = op.op.id
            let current = byReplica[id.replica.description] ?? (0, 0)
            byReplica[id.replica.description] = (current.count + 1, max(current.highest, id.counter))
        }
        for bot in outcome.bots {
            let found = byReplica[bot.replica] ?? (0, 0)
            #expect(found.count == bot.opsAcknowledged, "\(bot.name): \(found.count) stored")
            #expect(found.highest == bot.highestAcknowledgedCounter, "\(bot.name)")
        }
    }

    /// The server again on its port, which a moment's other socket may
    /// still hold: a few tries.
    private func restart(database: String, port: Int) throws -> ServerProcess {
        for _ in 0..<10 {
            if let server = try? ServerProcess(database: database, port: port) { return server }
            Thread.sleep(forTimeInterval: 0.3)
        }
        return try ServerProcess(database: database, port: port)
    }

    private func waitUntil(seconds: Double, _ condition: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    private func writeScript(_ text: String) throws -> String {
        let path = temporaryDatabase() + ".easel"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// The parts of `easel bot --report` the tests read.
private struct BotReport: Decodable {
    struct Bot: Decodable {
        var name, replica, stateHash: String
        var opsMade, opsAcknowledged, offlinePeriods, connections: Int
        var highestAcknowledgedCounter: UInt64
    }

    var verdict: String
    var serverStateHash: String?
    var charactersChecked: Int
    var misplacedCharacters: [String]
    var bots: [Bot]

    init(path: String) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
