import EaselTestSupport
import Foundation
import Testing

/// What `easel serve --log-format json` tells its operator: a JSON object a
/// line for the start, each connection opened, joined and closed, refusals
/// (a flood summarised, not written), storage failures with their detail
/// under an incident number the client also gets, recoveries, and the stop.
@Suite("easel serve's log", .serialized)
struct ServerLogTests {
    @Test func everyLineIsOneJSONObjectAndEachConnectionIsLoggedOpenedJoinedAndClosedWithItsCodeAndDocument()
        throws
    {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let pushed = try OutsideClient.run(["\(server.port)", "push", "logs/board", "2"])
        #expect((pushed["acked"] as? [Int])?.count == 2)
        let closed = try #require(server.awaitRecord("connection closed"))
        #expect(server.terminate().status == 0)

        let records = server.logRecords
        #expect(records.allSatisfy { $0["unparsed"] == nil && $0["time"] is String && $0["level"] is String })
        let serving = try #require(records.first)
        #expect(serving["message"] as? String == "serving")
        #expect(serving["access"] as? String == "no tokens, loopback only")
        #expect(serving["max_connections"] as? Int == 10_000, "numbers are JSON numbers")

        let opened = try #require(server.records("connection opened").first)
        let connection = try #require(opened["connection"] as? String)
        #expect(opened["peer"] as? String == "127.0.0.1")
        let joined = try #require(server.records("connection joined").first)
        #expect(joined["connection"] as? String == connection)
        #expect(joined["document"] as? String == "logs/board" && joined["role"] as? String == "edit")
        #expect(closed["connection"] as? String == connection)
        #expect(closed["document"] as? String == "logs/board")
        #expect(closed["by"] as? String == "peer" && closed["code"] as? Int == 1000)
        let loaded = try #require(server.records("room loaded").first)
        #expect(loaded["document"] as? String == "logs/board" && loaded["head"] as? Int == 0)
        let order = records.compactMap { $0["message"] as? String }
        #expect(Array(order.suffix(2)) == ["stopping: closing every connection", "stopped: storage flushed"])
    }

    @Test func theServiceLoopWaitsWithEpollSoATurnCostsWhatIsActiveNotEveryOpenConnection() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let serving = try #require(server.awaitRecord("serving"))
        #expect(serving["event_loop"] as? String == "epoll")
    }

    @Test func refusalsAreLoggedByCodeAndAFloodIsCountedInOneSummaryLine() throws {
        let server = try ServerProcess(
            database: temporaryDatabase(), arguments: ["--refusal-log-lines", "2", "--refusal-log-window-ms", "1000"])
        defer { server.kill() }
        let vectors = ServerProcess.packageRoot.appendingPathComponent("Protocol/vectors").path
        _ = try OutsideClient.run(["\(server.port)", "invalid-vectors", vectors])
        let summary = try #require(server.awaitRecord("refusals not logged (too many in the window)"))
        let refused = server.records("refused")
        let byCode = Dictionary(grouping: refused) { $0["code"] as? Int ?? 0 }
        // At most 2 lines a code in each 1 s window the flood lasted (a
        // busy machine may stretch it over several).
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let times = refused.compactMap { ($0["time"] as? String).flatMap(parser.date(from:)) }
        let span = (times.max() ?? .distantPast).timeIntervalSince(times.min() ?? .distantPast)
        let windows = Int(span / 1.0) + 1
        #expect(byCode.values.allSatisfy { $0.count <= 2 * windows }, "at most 2 lines a code in a window")
        #expect(byCode[108] != nil, "invalid values refused")
        let suppressed = try #require(summary["suppressed"] as? Int)
        #expect(suppressed > 0)
        #expect(refused.allSatisfy { $0["error"] is String && $0["connection"] is String })
    }

    @Test func aStorageFailureIsLoggedWithItsDetailUnderAnIncidentTheClientGetsWithoutTheDetailThenTheRecovery()
        throws
    {
        let server = try ServerProcess(
            database: temporaryDatabase(), arguments: ["--fault-fail-appends-to", "logs/broken"])
        defer { server.kill() }
        let reply = try OutsideClient.run(["\(server.port)", "push-once", "logs/broken"])
        #expect(reply["type"] as? String == "error" && reply["code"] as? Int == 501)
        let message = try #require(reply["message"] as? String)
        let failed = try #require(server.awaitRecord("storage failed"))
        let incident = try #require(failed["incident"] as? String)
        #expect(message.contains("incident \(incident)"), "\(message)")
        #expect(
            !message.contains("SQLite") && !message.contains("INSERT") && !message.contains("injected"), "\(message)")
        #expect((failed["detail"] as? String)?.contains("injected fault") == true)
        #expect((failed["detail"] as? String)?.contains("SQLite code 10") == true)
        #expect(failed["level"] as? String == "error")
        let closedRoom = try #require(server.awaitRecord("room closed: storage failed"))
        #expect(closedRoom["document"] as? String == "logs/broken" && closedRoom["incident"] as? String == incident)

        let fine = try OutsideClient.run(["\(server.port)", "push-once", "logs/fine"])
        #expect(fine["type"] as? String == "ack")
        #expect(server.awaitRecord("storage recovered") != nil)
    }
}
