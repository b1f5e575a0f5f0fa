import EaselModel
import EaselPostgres
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

/// `easel serve --store postgres://…`: nodes on one private PostgreSQL,
/// reached by a client written by someone else (Python's websockets).
@Suite("Nodes on one PostgreSQL", .serialized)
struct PostgresNodeTests {
    func node(_ name: String, on postgres: LocalPostgres) throws -> ServerProcess {
        try ServerProcess(
            database: temporaryDatabase(),
            arguments: ["--store", postgres.url, "--node-name", name, "--lease-seconds", "1"])
    }

    func stored(_ document: String, in postgres: LocalPostgres) throws -> [LoggedOp] {
        try PostgresStore(url: postgres.url, migrating: false).load(document).tail
    }

    /// Two nodes on a private PostgreSQL, the first with a lease of
    /// `firstLease` seconds, all stopped after `body`.
    func withTwoNodes(
        firstLease: Double = 1, _ body: (LocalPostgres, ServerProcess, ServerProcess) throws -> Void
    ) throws {
        let postgres = try LocalPostgres()
        defer { postgres.stop() }
        let first = try ServerProcess(
            database: temporaryDatabase(),
            arguments: ["--store", postgres.url, "--node-name", "node1", "--lease-seconds", "\(firstLease)"])
        defer { first.kill() }
        let second = try node("node2", on: postgres)
        defer { second.kill() }
        try body(postgres, first, second)
    }

    func push(_ node: ServerProcess, _ document: String, replica: String) throws -> [String: Any] {
        try OutsideClient.run(["\(node.port)", "push-once", document, "-", replica])
    }

    @Test(
        "a node acknowledges a push once PostgreSQL holds it, and a second node on the same database sends that document's clients to the first with 503 'moved to node1' and 4007"
    )
    func aSecondNodeSendsClientsToTheHolder() throws {
        try withTwoNodes { postgres, first, second in
            let ack = try push(first, "team/a", replica: "00000000000000c5")
            #expect(ack["type"] as? String == "ack", "\(ack)")
            #expect(
                try stored("team/a", in: postgres).map(\.op.id) == [
                    OpID(counter: 1, replica: ReplicaID(rawValue: 0xC5))
                ])
            let sent = try OutsideClient.run(["\(second.port)", "hello-as", "team/a", "00000000000000c6", "-"])
            #expect(sent["refused"] as? Int == 503, "\(sent)")
            #expect(sent["message"] as? String == "moved to node1")
            #expect(sent["close"] as? Int == 4007)
            // Another document is the second node's to serve.
            #expect(try push(second, "team/b", replica: "00000000000000c7")["type"] as? String == "ack")
        }
    }

    @Test(
        "a node asked GET /d/<document>?home=1 (the router's choice, for rebalancing) answers its own name and loads nothing; a single server has no such answer"
    )
    func aNodeAnswersWhereADocumentBelongs() throws {
        try withTwoNodes { postgres, first, _ in
            let answer = try OutsideClient.run(["\(first.port)", "http", "/d/team/homeless?home=1"])
            #expect(answer["status"] as? Int == 200, "\(answer)")
            #expect(answer["body"] as? String == "node1\n")
            #expect(try PostgresStore(url: postgres.url, migrating: false).document(named: "team/homeless") == nil)
        }
        // A single server takes it for the page's address.
        let single = try ServerProcess(database: temporaryDatabase())
        defer { single.kill() }
        let page = try OutsideClient.run(["\(single.port)", "http", "/d/team/homeless?home=1"])
        #expect(page["status"] as? Int == 404 || (page["body"] as? String)?.contains("<html") == true, "\(page)")
    }

    @Test(
        "behind a router, a node sent a client of a document another live node holds asks that node to hand it over, and serves the client once it has: nothing acknowledged is lost"
    )
    func aNodeBehindARouterAsksTheHolderToHandOver() throws {
        let postgres = try LocalPostgres()
        defer { postgres.stop() }
        // A router nobody answers on: the nodes still ask holders (their
        // rounds of questions to it fail, and are only logged).
        let behindRouter = ["--store", postgres.url, "--lease-seconds", "30", "--router", "127.0.0.1:9"]
        let first = try ServerProcess(
            database: temporaryDatabase(), arguments: behindRouter + ["--node-name", "node1"])
        defer { first.kill() }
        let second = try ServerProcess(
            database: temporaryDatabase(), arguments: behindRouter + ["--node-name", "node2"])
        defer { second.kill() }
        #expect(try push(first, "team/a", replica: "00000000000000c5")["type"] as? String == "ack")
        // A document taken moments ago stays: it may have just moved.
        Thread.sleep(forTimeInterval: 5.2)
        let asked = Date()
        let answer = try push(second, "team/a", replica: "00000000000000c6")
        #expect(answer["type"] as? String == "ack", "\(answer)")
        #expect(Date().timeIntervalSince(asked) < 3, "the lease (30 s here) was waited out, not handed over")
        let owner = try PostgresStore(url: postgres.url, migrating: false)
        // The handed-over room snapshotted as it unloaded: its ops are in the snapshot.
        #expect(try owner.load("team/a").head == 2)
        #expect(try owner.documentsHeld(byNodeNamed: "node2") == ["team/a"])
    }

    @Test(
        "a node stopped with SIGTERM releases its documents' leases as it goes, and another node serves them at once with every acknowledged op"
    )
    func aStoppedNodeHandsItsDocumentsOver() throws {
        try withTwoNodes(firstLease: 30) { postgres, first, second in
            #expect(try push(first, "team/a", replica: "00000000000000c5")["type"] as? String == "ack")
            #expect(first.terminate().status == 0)
            let taken = Date()
            let answer = try push(second, "team/a", replica: "00000000000000c6")
            #expect(answer["type"] as? String == "ack", "\(answer)")
            // The lease (30 s here) was released, not waited out.
            #expect(Date().timeIntervalSince(taken) < 2)
            #expect(try stored("team/a", in: postgres).count == 2)
        }
    }

    @Test(
        "a node SIGSTOPped past its lease serves nothing from its rooms when it resumes: a client that saw edits another node took the document over for is sent to that node, never refused by the stale room"
    )
    func aResumedNodeServesNothingStale() throws {
        try withTwoNodes { postgres, first, second in
            #expect(try push(first, "team/a", replica: "00000000000000c5")["type"] as? String == "ack")
            kill(first.process.processIdentifier, SIGSTOP)
            var resumed = false
            defer { if !resumed { kill(first.process.processIdentifier, SIGCONT) } }
            // Past its lease (1 s): the second node takes the document and
            // commits an entity the first node's room never saw.
            Thread.sleep(forTimeInterval: 1.5)
            var taken: [String: Any] = [:]
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                taken = (try? push(second, "team/a", replica: "00000000000000c6")) ?? [:]
                if taken["type"] as? String == "ack" { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            #expect(taken["type"] as? String == "ack", "\(taken)")
            // A client of the first node waits in its listen queue, and is
            // the first thing it serves when it resumes.
            let mover = try OutsideClient([
                "\(first.port)", "move-entity", "team/a", "00000000000000c7", "1@00000000000000c6",
            ])
            Thread.sleep(forTimeInterval: 1)
            kill(first.process.processIdentifier, SIGCONT)
            resumed = true
            let answer = try mover.finish()
            let refused = answer["refused"] as? Int ?? ((answer["push"] as? [String: Any])?["code"] as? Int)
            #expect(refused == 503, "\(answer)")
            // Both creates, each once (a room letting go may snapshot it).
            #expect(try PostgresStore(url: postgres.url, migrating: false).load("team/a").head == 2)
        }
    }

    @Test(
        "a node killed with SIGKILL leaves its documents to another node at once: its session's end frees its leases, and nothing acknowledged is lost"
    )
    func aKilledNodesDocumentsAreTakenAtOnce() throws {
        try withTwoNodes(firstLease: 30) { (postgres, first, second) throws in
            #expect(try push(first, "team/a", replica: "00000000000000c5")["type"] as? String == "ack")
            first.kill()
            let killed = Date()
            var answer: [String: Any] = [:]
            // PostgreSQL sees the session end as the kernel closes the killed
            // process's sockets; a lease of 30 s is never waited out.
            while Date().timeIntervalSince(killed) < 10 {
                // Refused (moved) while the server has not yet seen the session end.
                answer = (try? push(second, "team/a", replica: "00000000000000c6")) ?? [:]
                if answer["type"] as? String == "ack" { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            #expect(answer["type"] as? String == "ack", "\(answer)")
            #expect(Date().timeIntervalSince(killed) < 5)
            #expect(try stored("team/a", in: postgres).count == 2)
        }
    }
}
