import Foundation
import Testing

/// `easel chaos soak`'s short form: bots come and go, the server is
/// sampled every second and must stay flat, and its rooms must unload.
@Suite("easel chaos soak", .serialized)
struct ChaosSoakTests {
    struct Report: Decodable {
        var passed: Bool
        var lost, uploads: Int
        var visits, roomsMax, roomsUnloadedSecondsAfterTheEnd, residentMegabytesMax: Double
        var unsettled, problems: [String]
    }

    @Test(
        "bots that come and go on ten documents for 30 s leave the server's descriptors and queues flat and its memory returned, lose nothing, converge on every visit, and every room unloads once its document is left"
    )
    func botsComingAndGoingLeaveTheServerFlatAndEveryRoomUnloads() async throws {
        let folder = NSTemporaryDirectory() + "easel-chaos-soak-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = folder + "-report.json"
        let samples = folder + "-samples.csv"
        defer {
            try? FileManager.default.removeItem(atPath: report)
            try? FileManager.default.removeItem(atPath: samples)
        }
        let run = try await EaselChild([
            "chaos", "soak", "--seconds", "30", "--warm-up-seconds", "10", "--documents", "10",
            "--shortest-stay-seconds", "5", "--longest-stay-seconds", "12", "--shortest-rest-seconds", "2",
            "--longest-rest-seconds", "8", "--room-unload-delay-ms", "3000", "--seed", "5", "--folder", folder,
            "--report", report, "--samples", samples,
        ]).finished(timeout: 300)
        // Latency is not judged here: 10 s halves on a machine running the
        // rest of the suite in parallel say more about the suite than the
        // server. Everything else is.
        let verdict = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        let problems = verdict.problems.filter { !$0.hasPrefix("ackP99Milliseconds grew") }
        #expect(run.status == 0 || (!verdict.passed && problems.isEmpty), "\(run.output)\n\(run.errors)")
        #expect(verdict.lost == 0 && verdict.unsettled.isEmpty && problems.isEmpty, "\(verdict.problems)")
        #expect(verdict.visits > 10, "documents were visited more than once each")
        #expect(verdict.roomsMax > 0 && verdict.roomsMax <= 10)
        let lines = try String(contentsOfFile: samples, encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.hasPrefix("seconds,bots,connections,rooms,rss_mb") == true)
        #expect(lines.count >= 30, "a sample a second")
        #expect(
            lines.last?.split(separator: ",", omittingEmptySubsequences: false)[3] == "0", "the last sample has no room"
        )
    }
}
