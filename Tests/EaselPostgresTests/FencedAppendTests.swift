import EaselLocking
import EaselModel
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

@testable import EaselPostgres

/// Appends to PostgreSQL as the commit thread makes them: group commit,
/// contiguous positions, one op stored once, and the lease's fence checked
/// in the same transaction.
@Suite("Fenced appends to PostgreSQL")
struct FencedAppendTests {
    @Test("appends that continue the log commit, and a load returns them in order with their high-water counters")
    func appendsCommitInOrder() throws {
        try withPostgres { server in
            let node = try TestNode(server, name: "one")
            let board = try newDocument(node.store, "fenced/board")
            let lease = try node.granted(board)
            let ops = logged(6)
            #expect(
                node.store.commit([FencedAppend(document: board, ops: Array(ops[..<2]), lease: lease)]) == [.committed])
            #expect(
                node.store.commit([FencedAppend(document: board, ops: Array(ops[2...]), lease: lease)]) == [.committed])
            let loaded = try node.store.load("fenced/board")
            #expect(loaded.head == 6 && loaded.epoch == board.epoch)
            #expect(loaded.tail == ops)
            #expect(loaded.highWater == [alice: 6])
        }
    }

    @Test(
        "in one group commit, a document's appends that follow one another go in as one statement and are each acknowledged; a duplicate among them fails only its own append"
    )
    func aDocumentsAppendsInOneTurnAreJoined() throws {
        try withPostgres { server in
            let node = try TestNode(server, name: "one")
            let (first, second) = (try newDocument(node.store, "fenced/a"), try newDocument(node.store, "fenced/b"))
            let (leaseA, leaseB) = (try node.granted(first), try node.granted(second))
            let ops = logged(6)
            let interleaved = [
                FencedAppend(document: first, ops: Array(ops[0..<2]), lease: leaseA),
                FencedAppend(document: second, ops: logged(1), lease: leaseB),
                FencedAppend(document: first, ops: Array(ops[2..<3]), lease: leaseA),
                FencedAppend(document: first, ops: Array(ops[3..<6]), lease: leaseA),
                FencedAppend(document: second, ops: logged(1, from: 2), lease: leaseB),
            ]
            let (statements, into) = PostgresStore.joined(interleaved)
            #expect(statements.map(\.ops.count) == [6, 2])
            #expect(into == [0, 1, 0, 0, 1])
            #expect(node.store.commit(interleaved) == Array(repeating: .committed, count: 5))
            #expect(try node.store.load("fenced/a").tail == ops)
            #expect(try node.store.load("fenced/b").head == 2)
            // Counter 1 again, joined with an append that is new: only the
            // duplicate is refused.
            let outcomes = node.store.commit([
                FencedAppend(document: first, ops: logged(1, from: 7, counter: 1), lease: leaseA),
                FencedAppend(document: second, ops: logged(1, from: 3), lease: leaseB),
            ])
            #expect(outcomes[1] == .committed)
            guard case .conflict = outcomes[0] else {
                Issue.record("a duplicate was not refused: \(outcomes[0])")
                return
            }
            let again = node.store.commit([
                FencedAppend(document: first, ops: logged(1, from: 7, counter: 1), lease: leaseA),
                FencedAppend(document: first, ops: logged(1, from: 8, counter: 7), lease: leaseA),
            ])
            guard case .conflict = again[0] else {
                Issue.record("a duplicate joined with a good append was not refused: \(again)")
                return
            }
            #expect(try node.store.load("fenced/a").head == 6)
        }
    }

    @Test("in one group commit, an append that leaves a gap fails alone, and the appends beside it commit")
    func aGapFailsAloneInItsGroup() throws {
        try withPostgres { server in
            let node = try TestNode(server, name: "one")
            let (first, second) = (try newDocument(node.store, "fenced/a"), try newDocument(node.store, "fenced/b"))
            let (leaseA, leaseB) = (try node.granted(first), try node.granted(second))
            let outcomes = node.store.commit([
                FencedAppend(document: first, ops: logged(3), lease: leaseA),
                FencedAppend(document: second, ops: logged(2, from: 4), lease: leaseB),
            ])
            #expect(outcomes[0] == .committed)
            guard case .conflict(let why) = outcomes[1] else {
                Issue.record("expected a conflict, got \(outcomes[1])")
                return
            }
            #expect(why.contains("position 1"), "\(why)")
            #expect(try node.store.load("fenced/a").head == 3)
            #expect(try node.store.load("fenced/b").head == 0)
        }
    }

    @Test("an op already in the log fails only its own append: the transaction is retried without it")
    func aDuplicateOpFailsOnlyItsAppend() throws {
        try withPostgres { server in
            let node = try TestNode(server, name: "one")
            let (first, second) = (try newDocument(node.store, "fenced/a"), try newDocument(node.store, "fenced/b"))
            let (leaseA, leaseB) = (try node.granted(first), try node.granted(second))
            #expect(node.store.commit([FencedAppend(document: first, ops: logged(2), lease: leaseA)]) == [.committed])
            // Position 3 continues the log, but carries counter 1 again.
            let outcomes = node.store.commit([
                FencedAppend(document: second, ops: logged(2), lease: leaseB),
                FencedAppend(document: first, ops: logged(1, from: 3, counter: 1), lease: leaseA),
            ])
            #expect(outcomes[0] == .committed)
            guard case .conflict(let why) = outcomes[1] else {
                Issue.record("expected a conflict, got \(outcomes[1])")
                return
            }
            #expect(why.contains("in the log already"), "\(why)")
            #expect(try node.store.load("fenced/a").head == 2)
            #expect(try node.store.load("fenced/b").head == 2)
        }
    }

    @Test(
        "once another node took the lease, the old holder's appends are fenced and append nothing, and the new holder's load has every op the old one committed"
    )
    func aTakenLeaseFencesTheOldHolder() throws {
        try withPostgres { server in
            let paused = try TestNode(server, name: "paused", timing: LeaseTiming(ttl: .milliseconds(300)))
            let board = try newDocument(paused.store, "fenced/board")
            let old = try paused.granted(board)
            #expect(paused.store.commit([FencedAppend(document: board, ops: logged(3), lease: old)]) == [.committed])
            // The paused node renews nothing; its row expires.
            Thread.sleep(forTimeInterval: 0.5)
            let taker = try TestNode(server, name: "taker")
            let new = try taker.granted(board)
            #expect(new.fence > old.fence)
            #expect(try taker.store.load("fenced/board").head == 3)
            #expect(
                paused.store.commit([FencedAppend(document: board, ops: logged(2, from: 4), lease: old)]) == [.fenced])
            #expect(
                taker.store.commit([FencedAppend(document: board, ops: logged(2, from: 4), lease: new)]) == [.committed]
            )
            #expect(try taker.store.load("fenced/board").head == 5)
        }
    }

    @Test(
        "a lease taken while the holder's append is in its transaction waits for that commit, and the load after it sees the append"
    )
    func aTakeoverWaitsForTheHoldersTransaction() throws {
        try withPostgres { server in
            let holder = try TestNode(server, name: "holder", timing: LeaseTiming(ttl: .milliseconds(200)))
            let board = try newDocument(holder.store, "fenced/board")
            let lease = try holder.granted(board)
            // The holder's append, its transaction left open.
            try holder.store.connection.execute("BEGIN")
            let rows = try holder.store.connection.query(PostgresStore.appendStatement) { parameters in
                let ops = logged(2)
                parameters.append(board.id)
                parameters.append(lease.node)
                parameters.append(lease.fence)
                parameters.append(Int64(1))
                parameters.append(int8Array: ops.map { Int64(bitPattern: $0.op.id.replica.rawValue) })
                parameters.append(int8Array: ops.map { Int64($0.op.id.counter) })
                parameters.append(textArray: ops.map(\.author))
                parameters.append(int8Array: ops.map(\.receivedAt))
                parameters.append(byteaArray: ops.count) { $1.append(contentsOf: OpBatchCoding.encode([ops[$0].op])) }
            }
            #expect(rows.changed == 2)
            Thread.sleep(forTimeInterval: 0.3)
            // Another node takes the lease on a thread of its own, and loads.
            let answer = Locked<(waited: TimeInterval, head: UInt64)?>(nil)
            let done = DispatchSemaphore(value: 0)
            let taker = Thread {
                defer { done.signal() }
                guard let node = try? TestNode(server, name: "taker") else { return }
                let started = Date()
                guard (try? node.granted(board)) != nil, let head = try? node.store.load("fenced/board").head else {
                    return
                }
                answer.withLock { $0 = (Date().timeIntervalSince(started), head) }
            }
            taker.start()
            Thread.sleep(forTimeInterval: 0.5)
            try holder.store.connection.execute("COMMIT")
            done.wait()
            let (waited, head) = try #require(answer.value)
            #expect(waited > 0.3, "the take waited for the holder's commit")
            #expect(head == 2)
        }
    }
}
