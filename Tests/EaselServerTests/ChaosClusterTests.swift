import EaselModel
import EaselPostgres
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

@testable import easel

/// `easel chaos cluster`: bots on many documents through HAProxy while
/// nodes of a local cluster are SIGKILLed and SIGSTOPped; the short form
/// of the run in Docs/scaling.md, and its audit shown able to find a
/// duplicate.
@Suite("easel chaos cluster", .serialized)
struct ChaosClusterTests {
    struct Report: Decodable {
        var passed: Bool
        var documents, bots, acknowledgedOpsChecked, lost: Int
        var kills, pauses, drains, documentsMoved, failoverMedianSeconds, failoverWorstSeconds: Double
        var pausedFailoverWorstSeconds, drainedFailoverWorstSeconds, opsRefused: Double
        var adds, addedShareMedian, addedMovingMedianSeconds: Double
        var unsettled, problems, refusals: [String]
    }

    @Test(
        "bots on 50 documents through the router lose no acknowledged op, find none stored twice, have none refused and converge while nodes are SIGKILLed 4 times, SIGSTOPped past their lease once, drained once and one is added; a killed or drained node's documents are served again within 5 s, a paused one's within 10 s, and the added node is handed its share within 15 s"
    )
    func killedAndPausedNodesLoseNothingAcknowledged() async throws {
        let folder = NSTemporaryDirectory() + "easel-chaos-cluster-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = folder + "-report.json"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let run = try await EaselChild([
            "chaos", "cluster", "--kills", "4", "--pauses", "1", "--drains", "1", "--adds", "1", "--documents", "50",
            "--bots-per-document", "1",
            "--seed", "7",
            "--actions-per-second", "\(4 / sanitizerSlowdown)", "--folder", folder, "--report", report,
        ]).finished(timeout: 300 * sanitizerSlowdown)
        #expect(run.status == 0, "\(run.output)\n\(run.errors)")
        let verdict = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(verdict.passed && verdict.lost == 0, "\(verdict.unsettled) \(verdict.problems)")
        #expect(verdict.kills == 4 && verdict.pauses == 1 && verdict.drains == 1 && verdict.adds == 1)
        #expect(verdict.bots == 50)
        // The router sends the added node about a quarter of the documents:
        // their nodes hand them over while their rooms are loaded.
        #expect(verdict.addedShareMedian > 0, "the added node was handed no document")
        #expect(verdict.addedMovingMedianSeconds < 15 * sanitizerSlowdown, "\(verdict.addedMovingMedianSeconds) s")
        #expect(verdict.documentsMoved > 0, "no killed node held a document: nothing was tested")
        #expect(verdict.failoverWorstSeconds < 5 * sanitizerSlowdown, "\(verdict.failoverWorstSeconds) s")
        #expect(verdict.drainedFailoverWorstSeconds < 5 * sanitizerSlowdown, "\(verdict.drainedFailoverWorstSeconds) s")
        // The lease (3 s) runs out, then the router's cut clients find another node.
        #expect(verdict.pausedFailoverWorstSeconds < 10 * sanitizerSlowdown, "\(verdict.pausedFailoverWorstSeconds) s")
        #expect(verdict.opsRefused == 0, "\(verdict.opsRefused) edits refused: \(verdict.refusals)")
        #expect(Double(verdict.acknowledgedOpsChecked) > 500 / sanitizerSlowdown, "the bots barely edited")
    }

    struct StormReport: Decodable {
        var passed: Bool
        var lost, acknowledgedOpsChecked: Int
        var idleClients, idleRejoined, idleRejoinWorstSeconds, serverFullRefusals, opsRefused: Double
        var unsettled, problems, refusals: [String]
    }

    @Test(
        "a reconnect storm: 2,000 clients on 1,000 documents through the router, a node holding about a third of them SIGKILLed twice; every client is back through the router within 15 s, no node refuses one as full, and the bots beside them lose nothing and converge"
    )
    func aReconnectStormComesBackThroughTheRouter() async throws {
        let folder = NSTemporaryDirectory() + "easel-chaos-storm-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = folder + "-report.json"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let run = try await EaselChild([
            "chaos", "cluster", "--kills", "2", "--pauses", "0", "--drains", "0", "--documents", "10",
            "--idle-clients", "2000", "--idle-documents", "1000", "--seed", "43", "--folder", folder, "--report",
            report,
        ]).finished(timeout: 300 * sanitizerSlowdown)
        #expect(run.status == 0, "\(run.output)\n\(run.errors)")
        let verdict = try JSONDecoder().decode(StormReport.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(verdict.passed && verdict.lost == 0, "\(verdict.unsettled) \(verdict.problems)")
        #expect(verdict.idleClients == 2000)
        #expect(verdict.idleRejoined > 300, "the kills cut too few clients to be a storm")
        #expect(verdict.idleRejoinWorstSeconds < 15 * sanitizerSlowdown, "\(verdict.idleRejoinWorstSeconds) s")
        #expect(verdict.serverFullRefusals == 0)
        #expect(verdict.opsRefused == 0, "\(verdict.opsRefused) edits refused: \(verdict.refusals)")
    }

    @Test("the audit counts an acknowledged op missing from PostgreSQL as lost, and one stored twice as well")
    func theAuditFindsMissingAndDuplicatedOps() throws {
        let postgres = try LocalPostgres()
        defer { postgres.stop() }
        let store = try PostgresStore(url: postgres.url)
        let document = try DocumentName("chaos/doc-0")
        let board = try store.createDocument(document.rawValue, epoch: Epoch(rawValue: 1), at: 0)
        let stored = OpID(counter: 1, replica: ReplicaID(rawValue: 0xA1))
        let payload = OpBatchCoding.encode([op(1, ReplicaID(rawValue: 0xA1), .create(.emoji, [.character("⭐️")]))])
        // Twice, as a store without the unique index would have it.
        try store.connection.execute("DROP INDEX ops_by_id")
        for position in [Int64(1), 2] {
            try store.connection.query(
                """
                INSERT INTO ops (document, position, replica, counter, author, received_at, format, payload)
                VALUES ($1, $2, $3, 1, 'ada', 0, 1, $4)
                """
            ) {
                $0.append(board.id)
                $0.append(position)
                $0.append(Int64(0xA1))
                $0.append(bytes: payload)
            }
        }
        let witness = Witness()
        witness.acknowledged([stored], in: document)
        #expect(try witness.audit(postgres: postgres.url).duplicatedOps.count == 1)
        witness.acknowledged([OpID(counter: 2, replica: ReplicaID(rawValue: 0xA1))], in: document)
        let audit = try witness.audit(postgres: postgres.url)
        #expect(audit.missingOps.count == 1 && audit.lost == 2)
    }
}
