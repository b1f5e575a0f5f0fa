import EaselModel
import EaselProtocol
import EaselStore
import EaselSync
import EaselTestSupport
import Foundation
import Testing

/// Joiners of a big document that never read their welcome: the welcome is
/// encoded once and shared, what each joiner holds beyond it is small, and
/// each is closed once its welcome deadline passes.
@Suite("a crowd that never reads its welcome", .serialized)
struct WelcomeCrowdTests {
    static let document = "crowd/big"
    static let entities = 50_000
    static let joiners = 200
    /// What one non-reading joiner may cost the server beyond the shared
    /// encoding.
    static let perJoinerBound = 100_000

    /// A database holding one document of `entities` emoji.
    private func seededDatabase() throws -> String {
        let path = temporaryDatabase()
        let store = try OpStore(path: path)
        try store.createDocument(Self.document, epoch: Epoch(rawValue: 7), at: 0)
        var editor = Editor(replica: ReplicaID(rawValue: 0xB16))
        var logged: [LoggedOp] = []
        logged.reserveCapacity(Self.entities)
        for index in 0..<Self.entities {
            let spot = Point(x: Float(index % 250) * 30, y: Float(index / 250) * 30)
            for op in try editor.perform(.place(.emoji("🌲", size: 20), at: spot)) {
                logged.append(LoggedOp(position: UInt64(logged.count + 1), op: op, author: "seed", receivedAt: 0))
            }
        }
        try store.append(logged, to: Self.document)
        return path
    }

    private func metric(_ name: String, of server: ServerProcess) throws -> Double {
        let scrape = try OutsideClient.run(["\(server.port)", "http", "/metrics"])
        let line = ((scrape["body"] as? String) ?? "").split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return (line?.split(separator: " ").last).flatMap { Double($0) } ?? -1
    }

    @Test func aJoinersWelcomeDeadlineStartsWhenItsSharedEncodingIsDoneNotWhenItJoined() throws {
        // 100 ms to spare, the least the server takes, and 4 MB/s for the
        // bytes: less than encoding a 50,000-op welcome takes this build,
        // plenty for reading it off a loopback socket.
        let server = try ServerProcess(
            database: try seededDatabase(),
            arguments: [
                "--welcome-milliseconds", "100", "--welcome-bytes-per-second", "\(Int(4_000_000 / sanitizerSlowdown))",
            ])
        defer { server.kill() }
        let reader = try OutsideClient.run([
            "\(server.port)", "welcome-size", Self.document, "\(60 * sanitizerSlowdown)",
        ])
        #expect(reader["ops"] as? Int == Self.entities)
        print(
            "50,000-op welcome: first frame after \(reader["first_seconds"] ?? "?") s, last after \(reader["last_seconds"] ?? "?") s, \(reader["bytes"] ?? "?") bytes"
        )
        #expect(try metric("easel_welcomes_late_total", of: server) == 0)
    }

    @Test func twoHundredJoinersThatNeverReadShareOneEncodingHoldLittleEachAndAreClosedWith4002AtTheirDeadline()
        throws
    {
        // The deadline runs from when the shared encoding is done, which
        // takes seconds in a debug build beside the rest of the suite.
        let deadlineSeconds = 8 * sanitizerSlowdown
        let server = try ServerProcess(
            database: try seededDatabase(),
            arguments: [
                "--welcome-milliseconds", "\(Int(deadlineSeconds * 1000))", "--welcome-bytes-per-second", "1073741824",
            ])
        defer { server.kill() }
        // A joiner that reads: the document is in memory, its welcome measured.
        let reader = try OutsideClient.run([
            "\(server.port)", "welcome-size", Self.document, "\(60 * sanitizerSlowdown)",
        ])
        let welcomeBytes = try #require(reader["bytes"] as? Int)
        #expect(reader["ops"] as? Int == Self.entities)
        let before = try #require(server.residentBytes)

        let crowd = try OutsideClient([
            "\(server.port)", "non-readers", Self.document, "\(Self.joiners)", "\(3 * deadlineSeconds)",
        ])
        // One joiner after another, each a handshake and a hello: seconds
        // when the machine is quiet, far more beside the rest of the suite.
        #expect(try crowd.nextLine(within: 120 * sanitizerSlowdown)["joined"] as? Int == Self.joiners)
        // Every joiner's welcome queued: all but the first shared one encoding.
        let queued = Date().addingTimeInterval(20 * sanitizerSlowdown)
        while try metric("easel_welcomes_shared_total", of: server) < Double(Self.joiners - 1), Date() < queued {
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(try metric("easel_welcomes_shared_total", of: server) >= Double(Self.joiners - 1))
        Thread.sleep(forTimeInterval: 1)
        let during = try #require(server.residentBytes)
        let perJoiner = (during - before - welcomeBytes) / Self.joiners
        #expect(
            during - before < welcomeBytes + Self.joiners * Self.perJoinerBound,
            "\(Self.joiners) non-readers grew the server by \((during - before) >> 10) KiB (welcome \(welcomeBytes >> 10) KiB, about \(perJoiner) bytes each beyond it)"
        )

        // Past the deadline (8 s after the crowd's welcome is encoded, longer under a sanitizer), each is
        // closed with 4002 and cut off 5 s later. The crowd holds its sockets three times the deadline, room
        // for an encoding that took seconds, then reads each for up to 0.2 s: on a loaded machine its last
        // line comes well past the usual 28 s.
        let ended = try crowd.nextLine(within: 120 * sanitizerSlowdown)
        let late = try metric("easel_welcomes_late_total", of: server)
        #expect(late == Double(Self.joiners))
        let closes = server.logRecords.filter { record in
            (record["message"] as? String) == "connection closed" && (record["code"] as? Int) == 4002
        }
        #expect(closes.count == Self.joiners)
        #expect(ended["cut"] as? Int == Self.joiners)
    }
}
