import EaselLocking
import EaselTestSupport
import Foundation
import Testing

/// Hostile and careless clients against a real `easel serve`: each gets
/// its error and close codes, the server's memory stays bounded, and
/// everyone else notices nothing.
@Suite("easel serve under hostile input", .serialized)
final class HardeningTests {
    /// What the server may hold while it is flooded: its baseline is about
    /// 20-40 MB.
    static var memoryBound: Int { Int(Double(200 << 20) * sanitizerMemoryFactor) }
    private var servers: [ServerProcess] = []

    /// Whatever the clients sent, the server's log holds none of their ops'
    /// content: the text of the slow reader's entities, the flood's emoji.
    deinit {
        for server in servers {
            let log = server.log
            #expect(!log.isEmpty, "the server logged")
            #expect(!log.contains(String(repeating: "x", count: 32)), "a text entity's content in the log")
            #expect(!log.contains("⭐") && !log.contains("\\u2b50"), "an emoji's content in the log")
        }
    }

    func serve(_ arguments: [String] = []) throws -> ServerProcess {
        let server = try ServerProcess(database: temporaryDatabase(), arguments: arguments)
        servers.append(server)
        return server
    }

    @Test func everyInvalidVectorOverARealConnectionGetsItsCodeAndAWatcherInTheRoomSeesNothing() throws {
        let server = try serve()
        defer { server.kill() }
        let vectors = ServerProcess.packageRoot.appendingPathComponent("Protocol/vectors").path
        let report = try OutsideClient.run(["\(server.port)", "invalid-vectors", vectors])
        let results = try #require(report["results"] as? [[String: Any]])
        let index = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: vectors).appendingPathComponent("index.json")))
        let invalid = try #require((index as? [String: Any])?["invalid"] as? [Any])
        #expect(results.count == invalid.count)
        for result in results {
            let name = result["name"] as? String ?? "?"
            if name == "json-not-utf8" {
                // Invalid UTF-8 in a text frame is refused by the WebSocket
                // layer before any decoder sees it (RFC 6455 section 8.1).
                #expect(result["close"] as? Int == 1007, "\(name): \(result)")
            } else {
                #expect(result["code"] as? Int == result["expected"] as? Int, "\(name): \(result)")
                // A refused push is named whenever its batch could be read.
                #expect(result["batch"] as? String == result["expected_batch"] as? String, "\(name): \(result)")
            }
        }
        let watcherSaw = try #require(report["watcher_saw"] as? [Any])
        #expect(watcherSaw.isEmpty, "the watcher received \(watcherSaw)")
    }

    @Test func aPushFloodIsRefusedAsRateLimitedThenClosedWith4001WhileAnotherClientKeepsWorking() throws {
        let server = try serve()
        defer { server.kill() }
        let peak = PeakMemory(of: server)
        let flood = try OutsideClient(["\(server.port)", "push-flood", "hostile/push", "20000"])
        let bystander = try OutsideClient.run(["\(server.port)", "push", "hostile/push", "5"])
        let report = try flood.finish()
        #expect(report["close"] as? Int == 4001)
        #expect(report["errors"] as? [Int] == [400])
        #expect((bystander["acked"] as? [Int])?.count == 5)
        // The burst (twice the rate) got through and is stored. Its acks
        // race the close: those not out when the strikes run out are
        // dropped with the connection (a client resends, and the server
        // knows the resend), so how many arrive depends on the load.
        #expect((report["acks"] as? Int ?? 0) > 0)
        let stored = try OutsideClient.run(["\(server.port)", "welcome-size", "hostile/push"])
        #expect((stored["ops"] as? Int ?? 0) >= 2 * 100 + 5, "\(stored)")
        #expect(peak.stop() < Self.memoryBound)
    }

    @Test func aPresenceFloodIsClosedWith4001AndTheServersMemoryStaysBounded() throws {
        let server = try serve()
        defer { server.kill() }
        let peak = PeakMemory(of: server)
        var closes: [Int] = []
        for _ in 0..<5 {
            let report = try OutsideClient.run(["\(server.port)", "presence-flood", "hostile/presence", "20000"])
            closes.append(report["close"] as? Int ?? 0)
            #expect(report["errors"] as? [Int] == [400])
        }
        #expect(closes == [4001, 4001, 4001, 4001, 4001])
        let bystander = try OutsideClient.run(["\(server.port)", "push", "hostile/presence", "3"])
        #expect((bystander["acked"] as? [Int])?.count == 3)
        #expect(peak.stop() < Self.memoryBound)
    }

    @Test func aReaderThatStopsReadingIsClosedWith4002AndTheWriterIsNeverHeldUp() throws {
        let server = try serve(["--max-queued-bytes", "262144"])
        defer { server.kill() }
        let peak = PeakMemory(of: server)
        // More than loopback would let the kernel buffer (4 MB), and few
        // enough pushes that the reader is back within the 5 s the server
        // gives a closing connection to take its close frame.
        let report = try OutsideClient.run(["\(server.port)", "slow-reader", "hostile/slow", "6"])
        #expect(report["close"] as? Int == 4002)
        #expect(report["writer_ok"] as? Bool == true)
        #expect(peak.stop() < Self.memoryBound)
    }

    /// Loopback lets the kernel grow a socket's send buffer to 4 MB, which
    /// would swallow these 2 MiB and hide the reader from its queue bound.
    @Test func aReaderThatStopsReadingIsClosedOnceTheKernelsBoundedBufferAndItsQueueFill() throws {
        let server = try serve(["--max-queued-bytes", "262144"])
        defer { server.kill() }
        let report = try OutsideClient.run(["\(server.port)", "slow-reader", "hostile/slow-small", "2"])
        #expect(report["close"] as? Int == 4002)
        #expect(report["writer_ok"] as? Bool == true)
    }

    @Test func aMessageOverTheServersByteLimitGets109AndClose1009() throws {
        let server = try serve(["--max-message-bytes", "65536"])
        defer { server.kill() }
        let report = try OutsideClient.run(["\(server.port)", "oversize", "65537"])
        #expect(report["close"] as? Int == 1009)
        #expect(report["errors"] as? [Int] == [109])
        let fits = try OutsideClient.run(["\(server.port)", "garbage", String(repeating: " ", count: 60_000)])
        #expect((fits["error"] as? [String: Any])?["code"] as? Int == 110)
    }

    @Test func aHelloInAProtocolVersionTheServerDoesNotSpeakGets202AndClose4000() throws {
        let server = try serve()
        defer { server.kill() }
        let report = try OutsideClient.run([
            "\(server.port)", "hello-as", "hostile/version", "0000000000000001", "-", "0",
        ])
        #expect(report["refused"] as? Int == 202)
        #expect(report["close"] as? Int == 4000)
    }

    @Test func limitFlagsOutOfRangeAreRefusedWithTheReason() throws {
        let (status, _, message) = try runEasel([
            "serve", "--port", "0", "--db", temporaryDatabase(), "--max-ops-per-push", "5000",
        ])
        #expect(status != 0)
        #expect(message.contains("ops per push is 5000; it must be 1 to 4096"))
    }
}

/// The highest resident memory a server reaches while a test runs, sampled
/// every 10 ms on a thread of its own.
final class PeakMemory: @unchecked Sendable {
    private let peak = Locked(0)
    private let running = Locked(true)
    private let done = DispatchSemaphore(value: 0)

    init(of server: ServerProcess) {
        let pid = server.process.processIdentifier
        Thread { [self] in
            while running.value {
                if let bytes = ServerProcess.residentBytes(of: pid) { peak.withLock { $0 = max($0, bytes) } }
                Thread.sleep(forTimeInterval: 0.01)
            }
            done.signal()
        }.start()
    }

    /// Stops sampling; the peak in bytes.
    func stop() -> Int {
        running.withLock { $0 = false }
        done.wait()
        // A reading that never came would make every bound pass.
        #expect(peak.value > 0, "no memory reading of the server")
        return peak.value
    }
}
