import EaselModel
import EaselProtocol
import EaselStore
import Foundation
import Testing

/// `easel serve` as a real process on 127.0.0.1, spoken to by a client
/// somebody else wrote (Python's websockets). Every test stops its server.
@Suite("easel serve", .serialized)
struct ServeTests {
    @Test func anOutsideJSONClientJoinsPushesIsAcknowledgedAndReceivesTheOtherClientsOps() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let seen = try OutsideClient.run(["\(server.port)", "converse", "outside/json"])
        #expect(seen["subprotocol"] as? String == "easel.v1.json")
        let ack = try #require(seen["ack"] as? [String: Any])
        #expect(ack["first"] as? String == "1")
        #expect(ack["count"] as? Int == 1)
        let seenByBob = try #require((seen["seen_by_b"] as? [String: Any])?["ops"] as? [[String: Any]])
        #expect(seenByBob.map { $0["id"] as? String } == ["1@00000000000000a1"])
        #expect(seenByBob.map { $0["position"] as? String } == ["1"])
        let seenByAlice = try #require((seen["seen_by_a"] as? [String: Any])?["ops"] as? [[String: Any]])
        #expect(seenByAlice.map { $0["id"] as? String } == ["2@00000000000000b2"])
    }

    @Test func aClientNamingNoSubprotocolSpeaksTheBinaryEncoding() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let hello = ServerProcess.packageRoot.appendingPathComponent("Protocol/vectors/valid/hello-minimal.hex").path
        let answer = try OutsideClient.run(["\(server.port)", "binary-hello", hello])
        #expect(answer["binary"] as? Bool == true)
        #expect(answer["tag"] as? Int == Int(MessageType.welcome.rawValue))
    }

    @Test func sigtermClosesEveryConnectionWith1001AndExitsWithNothingAcknowledgedLost() throws {
        let database = temporaryDatabase()
        let server = try ServerProcess(database: database)
        defer { server.kill() }
        let holder = try OutsideClient(["\(server.port)", "hold", "shutdown/doc"])
        #expect(try holder.nextLine()["joined"] as? Bool == true)
        let pushed = try OutsideClient.run(["\(server.port)", "push", "shutdown/doc", "20"])
        #expect((pushed["acked"] as? [Int])?.count == 20)

        let (status, seconds) = server.terminate()
        #expect(status == 0)
        #expect(seconds < 5)
        let closed = try holder.finish()
        #expect(closed["close"] as? Int == 1001)
        #expect(closed["errors"] as? [Int] == [Int(ErrorCode.shuttingDown.rawValue)])
        #expect(server.printed.contains("easel: stopped"))
        #expect(try OpStore(path: database).head(of: "shutdown/doc") == 20)
    }

    @Test func afterSIGKILLAndARestartOnTheSameDatabaseEveryAcknowledgedOpIsThere() throws {
        let database = temporaryDatabase()
        let first = try ServerProcess(database: database)
        defer { first.kill() }
        let pushed = try OutsideClient.run(["\(first.port)", "push", "crash/doc", "50"])
        let acked = try #require(pushed["acked"] as? [Int])
        #expect(acked == Array(1...50))
        first.kill()

        let second = try ServerProcess(database: database)
        defer { second.kill() }
        let state = try OutsideClient.run(["\(second.port)", "state", "crash/doc"])
        #expect(state["position"] as? Int == 50)
        #expect((state["ids"] as? [String])?.count == 50)
    }

    @Test func bindingBeyondLoopbackWithoutASecretIsRefusedWithTheReasonAndTouchesNothing() throws {
        let database = temporaryDatabase()
        let (status, _, message) = try runEasel(["serve", "--host", "0.0.0.0", "--port", "0", "--db", database])
        #expect(status != 0)
        #expect(message.contains("refusing to listen on 0.0.0.0 without a secret"))
        #expect(message.contains("--secret"))
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func healthzAnswersWhileServingAndMetricsCountPushesCommitsAndErrors() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let health = try OutsideClient.run(["\(server.port)", "http", "/healthz"])
        #expect(health["status"] as? Int == 200)
        _ = try OutsideClient.run(["\(server.port)", "push", "metrics/doc", "3"])
        let hello = ServerProcess.packageRoot.appendingPathComponent("Protocol/vectors/valid/hello-minimal.hex").path
        _ = try OutsideClient.run(["\(server.port)", "binary-hello", hello])
        let refused = try OutsideClient.run(["\(server.port)", "garbage", "{nope"])
        #expect((refused["error"] as? [String: Any])?["code"] as? Int == Int(ErrorCode.invalidJSON.rawValue))

        let scrape = try OutsideClient.run(["\(server.port)", "http", "/metrics"])
        #expect(scrape["status"] as? Int == 200)
        let lines = Set(((scrape["body"] as? String) ?? "").split(separator: "\n").map(String.init))
        #expect(lines.contains("easel_pushes_total 3"))
        #expect(lines.contains("easel_ops_committed_total 3"))
        #expect(lines.contains("easel_commit_latency_seconds_count 3"))
        #expect(lines.contains("easel_rooms 2.0"))
        // Every push was acknowledged and every answer written: nothing waits.
        #expect(lines.contains("easel_ops_awaiting_storage 0.0"))
        #expect(lines.contains { $0.hasPrefix("easel_queued_bytes ") })
        #expect(lines.contains { $0.hasPrefix("easel_connections ") })
        #expect(lines.contains { $0.hasPrefix("easel_ops_per_transaction ") })
        #expect(lines.contains(#"easel_errors_total{code="110"} 1"#))

        let missing = try OutsideClient.run(["\(server.port)", "http", "/nothing-here"])
        #expect(missing["status"] as? Int == 404)
    }

    @Test func everyHTTPAnswerIsWholeEvenWhenTheRequestCarriedABodyToAPathThatTakesNone() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        func answer(_ request: String) throws -> String {
            let hex = Array(request.utf8).map { String(format: "%02x", $0) }.joined()
            return try OutsideClient.run(["\(server.port)", "raw-http", hex])["answer"] as? String ?? ""
        }
        let body = "Content-Length: 5\r\n\r\nhello"
        let health = try answer("POST /healthz HTTP/1.1\r\nHost: x\r\n" + body)
        #expect(health.hasPrefix("HTTP/1.1 200") && health.hasSuffix("\r\n\r\nserving\n"), "\(health)")
        let missing = try answer("POST /no/such/path HTTP/1.1\r\nHost: x\r\n" + body)
        #expect(missing.hasPrefix("HTTP/1.1 404") && missing.contains("no such page"), "\(missing)")
        let metrics = try answer("GET /metrics HTTP/1.1\r\nHost: x\r\n" + body)
        #expect(metrics.hasPrefix("HTTP/1.1 200") && metrics.contains("easel_connections"), "\(metrics)")
    }

    @Test func aNulInThePathALongPathAndHugeHeadersGet400And414And431WithAReasonAndTheServerStaysUp() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        func answer(_ request: [UInt8]) throws -> String {
            let hex = request.map { String(format: "%02x", $0) }.joined()
            return try OutsideClient.run(["\(server.port)", "raw-http", hex])["answer"] as? String ?? ""
        }
        let nul = try answer(Array("GET /a".utf8) + [0] + Array("b HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(nul.hasPrefix("HTTP/1.1 400 Bad Request") && nul.contains("NUL byte"), "\(nul)")
        let encoded = try answer(Array("GET /blobs/%00 HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(encoded.hasPrefix("HTTP/1.1 400") && encoded.contains("%00"), "\(encoded)")
        let long = try answer(Array("GET /\(String(repeating: "a", count: 5000)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(long.hasPrefix("HTTP/1.1 414 URI Too Long") && long.contains("4096 bytes"), "\(long)")
        let huge = try answer(
            Array("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 20_000))\r\n\r\n".utf8))
        #expect(huge.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large") && huge.contains("16384"), "\(huge)")
        let notHTTP = try answer([0x16, 0x03, 0x01, 0x00, 0xA5, 0x01, 0x00])
        #expect(notHTTP.hasPrefix("HTTP/1.1 400") && notHTTP.contains("HTTP/1.1 server"), "\(notHTTP)")
        // Big but within the limit (a browser's cookies), and the server is still up.
        let cookies = try answer(
            Array("GET /healthz HTTP/1.1\r\nHost: x\r\nCookie: \(String(repeating: "c", count: 12_000))\r\n\r\n".utf8))
        #expect(cookies.hasPrefix("HTTP/1.1 200") && cookies.hasSuffix("serving\n"), "\(cookies)")
        let refusals = server.logRecords.filter { $0["message"] as? String == "http refused" }
        #expect(refusals.compactMap { $0["status"] as? Int }.sorted() == [400, 400, 400, 414, 431])
    }

    @Test func theWebSocketPathIsIgnoredAndTheHelloAloneNamesTheDocument() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let joined = try OutsideClient.run(["\(server.port)", "paths", "team/board"])
        #expect((joined["/d/team/board"] as? [String: Any])?["position"] as? String == "0")
        #expect((joined["/some/other/path"] as? [String: Any])?["position"] as? String == "0")
    }

    @Test func aRefusedHelloIsNotFatalAndACorrectedHelloOnTheSameConnectionJoins() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let answer = try OutsideClient.run(["\(server.port)", "hello-mended", "team/board"])
        let refusals = try #require(answer["refusals"] as? [[String: Any]])
        #expect(refusals.map { $0["code"] as? Int } == [108, 109])
        #expect(refusals.map { $0["fatal"] as? Bool } == [false, false])
        #expect(answer["then"] as? String == "welcome")
    }

    @Test func aMessageOverOneMebibyteGetsError109AndClose1009() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let answer = try OutsideClient.run(["\(server.port)", "oversize", String(ProtocolLimits.messageBytes + 1)])
        #expect(answer["errors"] as? [Int] == [Int(ErrorCode.tooLarge.rawValue)])
        #expect(answer["close"] as? Int == Int(CloseCode.messageTooBig.rawValue))
        let health = try OutsideClient.run(["\(server.port)", "http", "/healthz"])
        #expect(health["status"] as? Int == 200, "the server stays up")
    }

    @Test func queuedMessagesOfEveryLengthClassLeaveFramedIntactForAStrictOutsideClient() throws {
        let server = try ServerProcess(database: temporaryDatabase())
        defer { server.kill() }
        let seen = try OutsideClient.run(["\(server.port)", "burst", "frames/burst", "120"])
        #expect(seen["acks"] as? Int == 120, "acks are frames under 126 bytes")
        #expect(seen["in_order"] as? Bool == true)
        #expect((seen["largest"] as? Int ?? 0) > 65_535, "64-bit lengths were framed")
        #expect((seen["frames"] as? Int ?? 0) > 1)
    }
}
