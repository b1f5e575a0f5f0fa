import EaselModel
import EaselProtocol

/// An append as the commit thread takes it: positioned ops for a document
/// this node holds the lease of, with the fencing token it holds it by.
public struct FencedAppend: Sendable {
    public var document: PostgresDocument
    public var ops: [LoggedOp]
    public var lease: Lease

    public init(document: PostgresDocument, ops: [LoggedOp], lease: Lease) {
        self.document = document
        self.ops = ops
        self.lease = lease
    }
}

/// How an append ended.
public enum AppendOutcome: Sendable, Equatable {
    case committed
    /// The lease is not this node's any more (another node took it, or it
    /// was released): nothing was appended, and nothing will be.
    case fenced
    /// The first op does not continue the log (it ends at `head`), or an op
    /// is in the log already: nothing was appended.
    case conflict(String)
    /// The database failed the transaction (or the connection broke, and
    /// whether it committed is unknown): nothing is acknowledged.
    case failed(PostgresError)
}

extension PostgresStore {
    /// One append in one statement: the lease row is locked `FOR SHARE` and
    /// must still name this node and fence, the document's head moves on
    /// from the position before the first op (compare-and-set), and the ops
    /// go in as arrays, one row each. If the lease or the head disagrees,
    /// nothing is inserted. A node taking the lease over updates that row,
    /// so it waits for this transaction, and loads after it.
    static let appendStatement = """
        WITH fence AS (
            SELECT 1 FROM leases WHERE document = $1 AND node = $2 AND fence = $3 FOR SHARE
        ), advanced AS (
            UPDATE documents SET head = $4 + cardinality($5::bigint[]) - 1
            WHERE id = $1 AND head = $4 - 1 AND EXISTS (SELECT 1 FROM fence)
            RETURNING id
        )
        INSERT INTO ops (document, position, replica, counter, author, received_at, format, payload)
        SELECT advanced.id, $4 + op.n - 1, op.replica, op.counter, op.author, op.received_at, 1, op.payload
        FROM advanced,
            unnest($5::bigint[], $6::bigint[], $7::text[], $8::bigint[], $9::bytea[])
                WITH ORDINALITY AS op(replica, counter, author, received_at, payload, n)
        """

    /// Commits many appends in one transaction, sent in one pipeline (one
    /// round trip, one WAL flush): group commit. An append the lease or the
    /// head refuses appends nothing and the others still commit. A failing
    /// statement (an op already in the log) rolls the whole transaction
    /// back; then each append runs in a transaction of its own, so only the
    /// culprit fails.
    public func commit(_ appends: [FencedAppend]) -> [AppendOutcome] {
        guard !appends.isEmpty else { return [] }
        for append in appends {
            if let refusal = Self.refusal(of: append) {
                // Checked before anything is sent: one bad append must not
                // fail the group.
                return appends.count == 1 ? [refusal] : appends.map { commitAlone($0) }
            }
        }
        let (statements, into) = Self.joined(appends)
        let results: [Result<PostgresRows, PostgresError>]
        do throws(PostgresError) {
            results = try connection.pipeline { queue throws(PostgresError) in
                try queue.send("BEGIN")
                for append in statements { try queue.send(Self.appendStatement) { Self.bind(append, into: &$0) } }
                try queue.send("COMMIT")
            }
        } catch {
            return appends.map { _ in .failed(error) }
        }
        if case .success(let committed) = results.last, committed.status != "COMMIT" {
            // A commit answered ROLLBACK: nothing of it is stored.
            let error = PostgresError(.unexpected, "the group's COMMIT answered \(committed.status)", sql: "COMMIT")
            return appends.map { _ in .failed(error) }
        }
        if case .failure(let error) = results.last {
            if connection.isBroken { return appends.map { _ in .failed(error) } }
            // A statement failed and the transaction with it: roll it back
            // and find the culprit one append at a time.
            _ = try? connection.execute("ROLLBACK")
            guard appends.count > 1 else {
                let culprit = results.lazy.compactMap { result -> PostgresError? in
                    if case .failure(let error) = result, error.sqlState != "25P02" { error } else { nil }
                }.first
                return [outcome(of: culprit ?? error)]
            }
            return appends.map { commitAlone($0) }
        }
        // A joined statement that inserted nothing (fenced, or the head
        // moved) refused every append in it, as each alone would have been.
        var outcomes: [AppendOutcome] = []
        outcomes.reserveCapacity(statements.count)
        for (append, result) in zip(statements, results.dropFirst()) {
            switch result {
            case .success(let rows) where rows.changed == append.ops.count: outcomes.append(.committed)
            case .success: outcomes.append(whyRefused(append))
            case .failure(let error): outcomes.append(outcome(of: error))
            }
        }
        return into.map { outcomes[$0] }
    }

    /// The appends of each document that follow one another under the same
    /// lease, each starting where the last ended, joined into one: a turn
    /// then runs a statement per document however many pushes its room
    /// sent meanwhile (a statement costs the server far more than a row).
    /// Also which joined append each original went into.
    static func joined(_ appends: [FencedAppend]) -> (joined: [FencedAppend], into: [Int]) {
        var joined: [FencedAppend] = []
        var into: [Int] = []
        into.reserveCapacity(appends.count)
        var latest: [Int64: Int] = [:]
        for append in appends {
            if let index = latest[append.document.id], joined[index].lease == append.lease,
                let last = joined[index].ops.last, let first = append.ops.first, first.position == last.position + 1
            {
                joined[index].ops += append.ops
                into.append(index)
            } else {
                latest[append.document.id] = joined.count
                into.append(joined.count)
                joined.append(append)
            }
        }
        return (joined, into)
    }

    private func commitAlone(_ append: FencedAppend) -> AppendOutcome {
        if let refusal = Self.refusal(of: append) { return refusal }
        do throws(PostgresError) {
            let rows = try connection.transaction { () throws(PostgresError) in
                try connection.query(Self.appendStatement) { Self.bind(append, into: &$0) }
            }
            return rows.changed == append.ops.count ? .committed : whyRefused(append)
        } catch {
            return outcome(of: error)
        }
    }

    /// What is wrong with an append before the database sees it.
    private static func refusal(of append: FencedAppend) -> AppendOutcome? {
        guard let first = append.ops.first else { return .conflict("an append of no ops") }
        var expected = first.position
        for stored in append.ops {
            guard stored.position == expected else {
                return .conflict("positions must follow each other; expected \(expected), not \(stored.position)")
            }
            guard stored.position <= largest, stored.op.id.counter <= largest else {
                return .conflict("counter \(stored.op.id.counter) or position \(stored.position) is past 2^63 - 1")
            }
            expected += 1
        }
        return nil
    }

    private static func bind(_ append: FencedAppend, into parameters: inout PostgresParameters) {
        let ops = append.ops
        parameters.append(append.document.id)
        parameters.append(append.lease.node)
        parameters.append(append.lease.fence)
        parameters.append(Int64(ops[0].position))
        parameters.append(int8Array: ops.lazy.map { Int64(bitPattern: $0.op.id.replica.rawValue) })
        parameters.append(int8Array: ops.lazy.map { Int64($0.op.id.counter) })
        parameters.append(textArray: ops.lazy.map(\.author))
        parameters.append(int8Array: ops.lazy.map(\.receivedAt))
        parameters.append(byteaArray: ops.count) { index, buffer in
            buffer.append(contentsOf: OpBatchCoding.encode([ops[index].op]))
        }
    }

    /// Why an append inserted nothing: the lease, or the head.
    private func whyRefused(_ append: FencedAppend) -> AppendOutcome {
        do throws(PostgresError) {
            let rows = try connection.query(
                """
                SELECT d.head, COALESCE(l.node = $2 AND l.fence = $3, false)
                FROM documents d LEFT JOIN leases l ON l.document = d.id WHERE d.id = $1
                """
            ) {
                $0.append(append.document.id)
                $0.append(append.lease.node)
                $0.append(append.lease.fence)
            }
            guard rows.count == 1 else { return .conflict("\(append.document.name) was deleted") }
            guard try rows.bool(0, 1) else { return .fenced }
            let head = try rows.int64(0, 0)
            return .conflict("the first op must take position \(head + 1), not \(append.ops[0].position)")
        } catch {
            return .failed(error)
        }
    }

    private func outcome(of error: PostgresError) -> AppendOutcome {
        error.isUniqueViolation ? .conflict("an op is in the log already: \(error.message)") : .failed(error)
    }
}
