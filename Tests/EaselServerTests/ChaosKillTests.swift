import EaselModel
import EaselProtocol
import EaselStore
import EaselTestSupport
import Foundation
import Testing

@testable import easel

/// `easel chaos kill` against a real server: the short form of the run in
/// Docs/RELIABILITY.md, and its audit shown able to find a loss.
@Suite("easel chaos kill", .serialized)
struct ChaosKillTests {
    struct Report: Decodable {
        var passed: Bool
        var kills, documents, bots, acknowledgedOpsChecked, storedBlobsChecked, lost, uploads: Int
        var unsettled: [String]
    }

    @Test(
        "a server SIGKILLed 20 times under random bots on 50 documents with images loses no acknowledged op or stored blob, and every bot converges"
    )
    func killedTwentyTimesUnderBotsLosesNothingAcknowledged() async throws {
        let folder = NSTemporaryDirectory() + "easel-chaos-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = folder + "-report.json"
        defer { try? FileManager.default.removeItem(atPath: report) }
        // Under a sanitizer the server lives as long as it would unslowed,
        // in what it gets done between kills, and the bots edit as much
        // more slowly as it runs: at the usual pace the backlog of edits and
        // image uploads each restart met kept the sanitized server from
        // settling them within the bots' two minutes (AddressSanitizer).
        let run = try await EaselChild([
            "chaos", "kill", "--kills", "20", "--documents", "50", "--folder", folder, "--report", report,
            "--shortest-run-ms", "\(Int(200 * sanitizerSlowdown))", "--longest-run-ms",
            "\(Int(2_000 * sanitizerSlowdown))", "--actions-per-second", "\(4 / sanitizerSlowdown)",
        ]).finished(timeout: 600 * sanitizerSlowdown)
        #expect(run.status == 0, "\(run.output)\n\(run.errors)")
        let verdict = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(verdict.passed && verdict.lost == 0 && verdict.unsettled.isEmpty, "\(verdict.unsettled)")
        #expect(verdict.kills == 20 && verdict.documents == 50 && verdict.bots == 100)
        // Sanitized bots edit a few times more slowly; restarts and joins
        // take longer still (ThreadSanitizer: 258 ops in one run).
        #expect(
            Double(verdict.acknowledgedOpsChecked) > 1_000 / sanitizerSlowdown,
            "the bots barely edited: nothing much was at stake")
        #expect(verdict.storedBlobsChecked > 0 && verdict.uploads > 0, "no image was uploaded")
    }

    @Test func theAuditCountsAnAcknowledgedOpOrStoredBlobMissingFromTheFilesAsLost() throws {
        let path = NSTemporaryDirectory() + "easel-audit-\(UUID().uuidString).db"
        defer {
            for suffix in ["", "-wal", "-shm", "-blobs", "-blobs-wal", "-blobs-shm"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
        let document = try DocumentName("chaos/doc-0")
        let stored = OpID(counter: 1, replica: ReplicaID(rawValue: 0xA1))
        do {
            let store = try OpStore(path: path)
            try store.createDocument(document.description, epoch: Epoch(rawValue: 1), at: 1)
            let op = Op(id: stored, transaction: TransactionID(stored), action: .create(.shape, [.width(10)]))
            try store.append([StoredOp(position: 1, op: op, author: "ada", receivedAt: 1)], to: document.description)
            _ = try BlobStore(besideDatabase: path)
        }
        let witness = Witness()
        witness.acknowledged([stored], in: document)
        #expect(try witness.audit(database: path).lost == 0)

        witness.acknowledged([OpID(counter: 2, replica: ReplicaID(rawValue: 0xA1))], in: document)
        witness.stored(BlobHash(bytes: [UInt8](repeating: 7, count: 32)))
        let audit = try witness.audit(database: path)
        #expect(audit.ops == 2 && audit.blobs == 1)
        #expect(audit.missingOps.count == 1 && audit.missingBlobs.count == 1)
    }
}

/// `easel chaos net` against a real server: bots through a proxy that
/// delays, stalls, cuts and hangs their connections.
@Suite("easel chaos net", .serialized)
struct ChaosNetTests {
    struct Report: Decodable {
        var passed: Bool
        var lost, uploads: Int
        var cuts, hangs, stalls, hungFreedLongestSeconds: Double
        var unsettled, problems: [String]
    }

    @Test(
        "bots whose connections are delayed, stalled, cut mid-frame and hung half-open reconnect and converge, nothing acknowledged is lost, and the server frees every hung connection within its timeouts"
    )
    func botsThroughABadNetworkConvergeAndTheServerFreesHungConnections() async throws {
        let folder = NSTemporaryDirectory() + "easel-chaos-net-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = folder + "-report.json"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let run = try await EaselChild([
            "chaos", "net", "--seconds", "10", "--documents", "6", "--bots-per-document", "3", "--seed", "7",
            "--folder", folder, "--report", report,
        ]).finished(timeout: 600)
        #expect(run.status == 0, "\(run.output)\n\(run.errors)")
        let verdict = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(verdict.passed && verdict.lost == 0, "\(verdict.unsettled) \(verdict.problems)")
        #expect(
            verdict.cuts > 0 && verdict.hangs > 0 && verdict.stalls > 0, "a fault never happened: nothing was tried")
        #expect(verdict.hungFreedLongestSeconds <= 16, "the silence timeout is 10 s, the close wait 5")
        #expect(verdict.uploads > 0)
    }
}
