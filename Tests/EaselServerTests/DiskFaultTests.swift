import EaselModel
import EaselStore
import EaselTestSupport
import Foundation
import Testing

@testable import easel

/// A real server whose SQLite runs on the faulty VFS (`--disk-faults`),
/// its faults switched from the test, and `easel chaos disk`'s short form.
@Suite("Disk faults", .serialized)
final class DiskFaultTests {
    let folder = NSTemporaryDirectory() + "easel-disk-faults-\(UUID().uuidString)"
    var database: String { folder + "/easel.db" }
    var control: String { folder + "/disk-faults" }

    init() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func push(_ server: ServerProcess, _ document: String, replica: ReplicaID) throws -> [String: Any] {
        try OutsideClient.run(["\(server.port)", "push-once", document, "-", "\(replica)"])
    }

    /// The op the outside client pushes: an emoji, its replica's counter 1.
    func isStored(_ document: String, replica: ReplicaID) throws -> Bool {
        try OpStore(readingBackupAt: database).op(of: document, id: OpID(counter: 1, replica: replica)) != nil
    }

    @Test(
        "a push the op log cannot store is refused with storageFailed and an incident, nothing of it is acknowledged or stored, the log says why, and the server stores it once the fault clears",
        arguments: DiskFaults.Kind.allCases)
    func aFailingOpLogRefusesThePushAndRecoversByItself(kind: DiskFaults.Kind) throws {
        let faults = try DiskFaults(controlFile: control)
        let server = try ServerProcess(database: database, arguments: ["--disk-faults", control])
        defer { server.kill() }
        let document = "disk/\(kind.rawValue)"
        let first = ReplicaID(rawValue: 0xC5)
        let second = ReplicaID(rawValue: 0xC6)
        #expect(try push(server, document, replica: first)["type"] as? String == "ack")

        faults.inject(kind, into: .ops)
        let refused = try push(server, document, replica: second)
        #expect(refused["type"] as? String == "error" && refused["code"] as? Int == 501, "\(refused)")
        #expect(faults.injected(kind, into: .ops) > 0)
        #expect(faults.injected(kind, into: .blobs) == 0)
        #expect(try !isStored(document, replica: second), "refused, yet in the log")
        let failed = try #require(server.awaitRecord("storage failed"))
        let incident = try #require(failed["incident"] as? String)
        #expect((refused["message"] as? String)?.contains("incident \(incident)") == true)
        #expect((failed["detail"] as? String)?.contains("SQLite code") == true, "\(failed)")

        faults.clear()
        #expect(try push(server, document, replica: second)["type"] as? String == "ack")
        #expect(server.awaitRecord("storage recovered") != nil)
        #expect(try isStored(document, replica: second))
        #expect(server.process.isRunning)
    }

    @Test(
        "an upload the blob file cannot store is answered 500 with an incident while ops are still acknowledged, and the next upload stored after the fault is logged as the recovery"
    )
    func aFailingBlobFileRefusesUploadsButNotOps() throws {
        let faults = try DiskFaults(controlFile: control)
        let server = try ServerProcess(database: database, arguments: ["--disk-faults", control])
        defer { server.kill() }
        let document = "disk/blobs"
        #expect(try push(server, document, replica: ReplicaID(rawValue: 0xC5))["type"] as? String == "ack")
        let image = folder + "/image.png"
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<5_000).map { UInt8($0 % 251) }
        try Data(bytes).write(to: URL(fileURLWithPath: image))
        let path = "/blobs/\(BlobHash(digesting: bytes).hex)?doc=\(document)"
        func upload() throws -> [String: Any] {
            try OutsideClient.run(["\(server.port)", "blob", "PUT", path, image, "-", "-"])
        }

        faults.inject(.write, into: .blobs)
        let refused = try upload()
        #expect(refused["status"] as? Int == 500, "\(refused)")
        #expect((refused["text"] as? String)?.contains("incident") == true)
        #expect(try push(server, document, replica: ReplicaID(rawValue: 0xC6))["type"] as? String == "ack")
        #expect(faults.injected(.write, into: .blobs) > 0 && faults.injected(.write, into: .ops) == 0)
        #expect(server.records("storage recovered").isEmpty, "the op log never failed")

        faults.clear()
        #expect(try upload()["status"] as? Int == 201)
        #expect(server.awaitRecord("blob storage recovered") != nil)
    }

    struct Report: Decodable {
        var passed: Bool
        var lost, uploads, acknowledgedOpsChecked: Int
        var powerCuts, failuresLogged, opFaultWindows, blobFaultWindows: Double
        var opsWriteFailed, opsSyncFailed, opsFullFailed, blobsWriteFailed, blobsSyncFailed, blobsFullFailed: Double
        var unsettled, problems: [String]
    }

    @Test(
        "under bots with images, writes and syncs that fail and a disk that fills, in the op log and the blob file at random moments, with three power cuts, lose no acknowledged op or stored blob, leave sound files, and every bot converges"
    )
    func faultsAndPowerCutsUnderBotsLoseNothingAcknowledged() async throws {
        let report = folder + "/report.json"
        // A sanitized server writes several times less in a fault's window, so
        // under a sanitizer the faults last longer and the run with them; under
        // ThreadSanitizer as first set, no fault hit a write.
        let seconds = Int(10 * max(1, sanitizerSlowdown / 2))
        let run = try await EaselChild([
            "chaos", "disk", "--seconds", "\(seconds)", "--power-cuts", "3", "--documents", "10", "--seed", "3",
            "--shortest-fault-ms", "\(Int(100 * sanitizerSlowdown))",
            "--longest-fault-ms", "\(Int(1_000 * sanitizerSlowdown))",
            "--folder", folder + "/run", "--report", report,
        ]).finished(timeout: 300 * sanitizerSlowdown)
        #expect(run.status == 0, "\(run.output)\n\(run.errors)")
        let verdict = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(
            verdict.passed && verdict.lost == 0 && verdict.unsettled.isEmpty, "\(verdict.unsettled) \(verdict.problems)"
        )
        #expect(verdict.powerCuts == 3)
        #expect(verdict.opFaultWindows > 0 && verdict.blobFaultWindows > 0)
        let failed = [
            verdict.opsWriteFailed, verdict.opsSyncFailed, verdict.opsFullFailed, verdict.blobsWriteFailed,
            verdict.blobsSyncFailed, verdict.blobsFullFailed,
        ]
        #expect(failed.reduce(0, +) > 0 && verdict.failuresLogged > 0, "no fault hit the server")
        #expect(verdict.acknowledgedOpsChecked > 100, "the bots barely edited: nothing much was at stake")
    }

    @Test(
        "the power cut is real: with durability normal, whose commits are not synced, a cut loses acknowledged ops and the run fails"
    )
    func aPowerCutLosesWhatDurabilityNormalLeftUnsynced() async throws {
        let run = try await EaselChild([
            "chaos", "disk", "--seconds", "4", "--power-cuts", "1", "--documents", "5", "--seed", "3",
            "--durability", "normal", "--folder", folder + "/normal",
        ]).finished(timeout: 300)
        #expect(run.status != 0)
        #expect(run.errors.contains("after power cut 1: lost"), "\(run.output)\n\(run.errors)")
    }
}
