import EaselModel
import EaselPostgres
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

/// `easel db` and `easel log` against a cluster's PostgreSQL (`--store`),
/// as an operator runs them.
@Suite("easel db and easel log on PostgreSQL", .serialized)
struct PostgresAdminTests {
    static let replica = ReplicaID(rawValue: 0xAD)

    /// A document of three ops, appended under a lease as a node would.
    static func board(in postgres: LocalPostgres) throws -> [LoggedOp] {
        let store = try PostgresStore(url: postgres.url)
        let node = try store.registerNode(name: "admin", address: "127.0.0.1:0", timing: LeaseTiming())
        let row = try store.createDocument("team/board", epoch: Epoch(rawValue: 7), at: 1)
        guard case .granted(let lease) = try store.takeLease(of: row, for: node) else {
            throw PostgresError(.unexpected, "no lease")
        }
        let star = EntityID(opID(1, replica))
        let ops = [
            LoggedOp(position: 1, op: op(1, replica, .create(.emoji, [.character("⭐️")])), author: "ada", receivedAt: 1),
            LoggedOp(position: 2, op: op(2, replica, .set(star, .x(10))), author: "ada", receivedAt: 2),
            LoggedOp(position: 3, op: op(3, replica, .set(star, .y(20))), author: "ada", receivedAt: 3),
        ]
        guard store.commit([FencedAppend(document: row, ops: ops, lease: lease)]) == [.committed] else {
            throw PostgresError(.unexpected, "the board's ops were not committed")
        }
        return ops
    }

    @Test(
        "easel db list and snapshot, and easel log export and stat, read a cluster's PostgreSQL with --store; the commands that work on a SQLite file only say so and change nothing"
    )
    func adminCommandsReadPostgres() async throws {
        let postgres = try LocalPostgres()
        defer { postgres.stop() }
        let ops = try Self.board(in: postgres)
        let store = ["--store", postgres.url]

        let list = try await EaselChild(["db", "list"] + store).finished(timeout: 60)
        #expect(list.status == 0, "\(list.errors)")
        let row = list.output.split(separator: "\n").first { $0.hasPrefix("team/board") }
        #expect(row?.split(separator: " ").map(String.init).dropFirst(2).first == "3", "\(list.output)")

        let export = try await EaselChild(["log", "export", "--doc", "team/board"] + store).finished(timeout: 60)
        #expect(export.status == 0, "\(export.errors)")
        let lines = try export.output.split(separator: "\n").map { try OpLogJSON.decode(String($0)) }
        guard case .header(let header)? = lines.first else {
            Issue.record("no header: \(export.output)")
            return
        }
        #expect(header.document == "team/board" && header.epoch == Epoch(rawValue: 7))
        #expect(lines.dropFirst().compactMap { if case .op(let op) = $0 { op } else { nil } } == ops)

        let snapshot = try await EaselChild(["db", "snapshot", "--doc", "team/board"] + store).finished(timeout: 60)
        #expect(snapshot.output.contains("snapshot of team/board at position 3"), "\(snapshot.errors)")
        let stat = try await EaselChild(["log", "stat", "--doc", "team/board"] + store).finished(timeout: 60)
        #expect(stat.status == 0, "\(stat.errors)")
        #expect(stat.output.contains("head      3"))
        #expect(stat.output.contains("snapshot  at 3"))

        let compact = try await EaselChild(["db", "compact", "--doc", "team/board"] + store).finished(timeout: 60)
        #expect(compact.status != 0)
        #expect(compact.errors.contains("works on a SQLite file only"), "\(compact.errors)")
        #expect(try PostgresStore(url: postgres.url, migrating: false).load("team/board").head == 3)
    }
}
