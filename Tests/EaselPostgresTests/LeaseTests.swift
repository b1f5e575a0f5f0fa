import EaselLocking
import EaselModel
import EaselPostgres
import EaselProtocol
import EaselTestSupport
import Foundation
import Testing

/// Who may take a document's lease, by the database's clock and sessions.
@Suite("Leases in PostgreSQL")
struct LeaseTests {
    @Test("a lease held by a node that is connected and renews is refused to another node, which is told who holds it")
    func aLiveHoldersLeaseIsRefused() throws {
        try withPostgres { server in
            let holder = try TestNode(server, name: "holder")
            let other = try TestNode(server, name: "other")
            let board = try newDocument(holder.store, "lease/board")
            _ = try holder.granted(board)
            guard case .held(let by, let expiresIn, let draining) = try other.take(board) else {
                Issue.record("the lease was granted to a second node")
                return
            }
            #expect(by == holder.identity)
            #expect(expiresIn > 0 && expiresIn <= 3_000)
            #expect(!draining)
        }
    }

    @Test("a node asking again for a lease it holds gets the same fence: its own appends in flight are not fenced")
    func aHolderKeepsItsFence() throws {
        try withPostgres { server in
            let node = try TestNode(server, name: "one")
            let board = try newDocument(node.store, "lease/board")
            #expect(try node.granted(board) == node.granted(board))
        }
    }

    @Test(
        "two nodes asking at once for a free lease: one gets it, and the other is told that one holds it, in every round"
    )
    func twoTakersAtOnceNeverBothWin() throws {
        try withPostgres { server in
            let owner = try TestNode(server, name: "owner")
            let board = try newDocument(owner.store, "lease/race")
            _ = try owner.granted(board)
            for round in 0..<20 {
                try owner.store.releaseLease(of: board.id, by: owner.identity)
                let answers = Locked<[String: LeaseAnswer]>([:])
                let ready = DispatchGroup()
                let start = DispatchSemaphore(value: 0)
                let finish = DispatchSemaphore(value: 0)
                let done = DispatchGroup()
                for name in ["left", "right"] {
                    ready.enter()
                    done.enter()
                    Thread {
                        defer { done.leave() }
                        guard let node = try? TestNode(server, name: name) else {
                            ready.leave()
                            return
                        }
                        ready.leave()
                        start.wait()
                        if let answer = try? node.take(board) { answers.withLock { $0[name] = answer } }
                        // Alive until both have asked: a gone holder may rightly be taken from.
                        finish.wait()
                    }.start()
                }
                ready.wait()
                start.signal()
                start.signal()
                while answers.value.count < 2 { Thread.sleep(forTimeInterval: 0.005) }
                finish.signal()
                finish.signal()
                done.wait()
                let granted = answers.value.filter { if case .granted = $0.value { true } else { false } }
                #expect(granted.count == 1, "round \(round): \(answers.value)")
                guard granted.count == 1, let winner = granted.keys.first else { continue }
                guard case .held(let by, _, _) = answers.value[winner == "left" ? "right" : "left"] else { continue }
                #expect(by.name == winner)
                // Back to the owner for the next round, once the server has
                // seen the racers' sessions end (their threads closed them).
                let deadline = Date().addingTimeInterval(10)
                var answer = try owner.take(board)
                while case .held = answer, Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.01)
                    answer = try owner.take(board)
                }
                guard case .granted = answer else {
                    Issue.record("round \(round): the racers' sessions never ended: \(answer)")
                    return
                }
            }
        }
    }

    @Test("a lease whose holder's session ended (a killed process) is taken at once, with a raised fence")
    func aDeadSessionsLeaseIsTakenAtOnce() throws {
        try withPostgres { server in
            let other = try TestNode(server, name: "other")
            var board: PostgresDocument?
            var old: Lease?
            do {
                let killed = try TestNode(server, name: "killed", timing: LeaseTiming(ttl: .seconds(60)))
                board = try newDocument(killed.store, "lease/board")
                old = try killed.granted(try #require(board))
                try other.store.connection.query("SELECT pg_terminate_backend($1)") {
                    $0.append(Int32(killed.store.connection.backendProcess))
                }
            }
            let document = try #require(board)
            // The server ends the session's locks as the backend exits.
            var answer = try other.take(document)
            let deadline = Date().addingTimeInterval(5)
            while case .held = answer, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.01)
                answer = try other.take(document)
            }
            guard case .granted(let new) = answer else {
                Issue.record("the dead node's lease was not taken: \(answer)")
                return
            }
            #expect(new.fence == (try #require(old)).fence + 1)
        }
    }

    @Test("a lease whose holder is connected but stopped renewing is refused until its row expires, then taken")
    func aPausedHoldersLeaseIsTakenOnExpiry() throws {
        try withPostgres { server in
            let paused = try TestNode(server, name: "paused", timing: LeaseTiming(ttl: .milliseconds(800)))
            let other = try TestNode(server, name: "other")
            let board = try newDocument(paused.store, "lease/board")
            _ = try paused.granted(board)
            let started = Date()
            guard case .held = try other.take(board) else {
                Issue.record("taken before the holder's row expired")
                return
            }
            var answer = try other.take(board)
            while case .held = answer, Date().timeIntervalSince(started) < 5 {
                Thread.sleep(forTimeInterval: 0.02)
                answer = try other.take(board)
            }
            guard case .granted = answer else {
                Issue.record("never taken: \(answer)")
                return
            }
            let waited = Date().timeIntervalSince(started)
            #expect(waited > 0.6 && waited < 3, "taken after \(waited) s with a lease of 0.8 s")
        }
    }

    @Test(
        "renewing after the node's row expired says so, and the leases another node took meanwhile are no longer the node's"
    )
    func aLateRenewalFindsWhatWasTaken() throws {
        try withPostgres { server in
            let timing = LeaseTiming(ttl: .milliseconds(300))
            let late = try TestNode(server, name: "late", timing: timing)
            let other = try TestNode(server, name: "other")
            let (taken, kept) = (try newDocument(late.store, "lease/taken"), try newDocument(late.store, "lease/kept"))
            let keptLease = try late.granted(kept)
            _ = try late.granted(taken)
            #expect(try late.store.renew(late.identity, timing: timing), "renewed in time")
            Thread.sleep(forTimeInterval: 0.4)
            _ = try other.granted(taken)
            #expect(try late.store.renew(late.identity, timing: timing) == false, "the row had expired")
            #expect(try late.store.leases(of: late.identity) == [kept.id: keptLease.fence])
        }
    }

    @Test("a released lease is announced to listening nodes and taken at once")
    func aReleaseIsAnnouncedAndTaken() throws {
        try withPostgres { server in
            let holder = try TestNode(server, name: "holder")
            let other = try TestNode(server, name: "other")
            let board = try newDocument(holder.store, "lease/board")
            let old = try holder.granted(board)
            try other.store.connection.execute("LISTEN \(PostgresStore.releaseChannel)")
            try holder.store.releaseLease(of: board.id, by: holder.identity)
            let heard = try other.store.connection.notifications(waitingUpTo: 2_000)
            #expect(heard.map(\.channel) == [PostgresStore.releaseChannel])
            #expect(heard.map(\.payload) == ["\(board.id)"])
            #expect(try other.granted(board).fence == old.fence + 1)
        }
    }

    @Test(
        "a lease being handed to a node: that node is told the holder is releasing it, any other node that it is held, and after the release the node it was handed to takes it"
    )
    func aHandoverMakesItsNodeWaitForTheRelease() throws {
        try withPostgres { server in
            let holder = try TestNode(server, name: "holder")
            let home = try TestNode(server, name: "home")
            let stranger = try TestNode(server, name: "stranger")
            let board = try newDocument(holder.store, "lease/handover")
            let old = try holder.granted(board)
            #expect(try holder.store.beginHandover(of: board.id, by: holder.identity, to: "home"))
            guard case .held(let by, _, releasing: true) = try home.take(board) else {
                Issue.record("the node a lease is handed to was not told to wait for its release")
                return
            }
            #expect(by == holder.identity)
            guard case .held(_, _, releasing: false) = try stranger.take(board) else {
                Issue.record("a node the lease is not handed to was not sent to its holder")
                return
            }
            try holder.store.releaseLease(of: board.id, by: holder.identity)
            #expect(try home.granted(board).fence == old.fence + 1)
        }
    }

    @Test(
        "a handover is called off when its holder loads the document again, and never marked to a node that is not serving or by a node that lost the lease"
    )
    func aHandoverIsCalledOffOrRefused() throws {
        try withPostgres { server in
            let holder = try TestNode(server, name: "holder")
            let home = try TestNode(server, name: "home")
            let board = try newDocument(holder.store, "lease/called-off")
            let lease = try holder.granted(board)
            #expect(!(try holder.store.beginHandover(of: board.id, by: holder.identity, to: "nobody")))
            #expect(!(try home.store.beginHandover(of: board.id, by: home.identity, to: "home")))
            #expect(try holder.store.beginHandover(of: board.id, by: holder.identity, to: "home"))
            #expect(try holder.granted(board) == lease)
            guard case .held(_, _, releasing: false) = try home.take(board) else {
                Issue.record("a handover called off still made its node wait")
                return
            }
        }
    }

    @Test(
        "a node asking a live holder to hand a lease over marks it for itself and tells the holder; a second asker is refused; the holder calling it off sends the asker back to it"
    )
    func askingAHolderToHandOver() throws {
        try withPostgres { server in
            let holder = try TestNode(server, name: "holder")
            let asker = try TestNode(server, name: "asker")
            let late = try TestNode(server, name: "late")
            let board = try newDocument(holder.store, "lease/asked")
            _ = try holder.granted(board)
            try holder.store.connection.execute("LISTEN \(PostgresStore.handoverChannel)")
            #expect(try asker.store.askHandover(of: board.id, from: holder.identity.id, to: asker.identity))
            let heard = try holder.store.connection.notifications(waitingUpTo: 2_000)
            #expect(heard.map(\.payload) == ["\(holder.identity.id):\(board.id):asker"])
            #expect(!(try late.store.askHandover(of: board.id, from: holder.identity.id, to: late.identity)))
            guard case .held(_, _, releasing: true) = try asker.take(board) else {
                Issue.record("the asker was not told to wait for the release")
                return
            }
            try holder.store.callOffHandover(of: board.id, by: holder.identity)
            guard case .held(let by, _, releasing: false) = try asker.take(board) else {
                Issue.record("a handover called off still made the asker wait")
                return
            }
            #expect(by == holder.identity)
        }
    }

    @Test(
        "a handover a node asked for is not overwritten by the holder's own handover to another node, and the asker giving up its wait clears only its own mark"
    )
    func anAskedHandoverIsKeptUntilItsAskerGivesUp() throws {
        try withPostgres { server in
            let holder = try TestNode(server, name: "holder")
            let asker = try TestNode(server, name: "asker")
            let other = try TestNode(server, name: "other")
            let board = try newDocument(holder.store, "lease/kept")
            _ = try holder.granted(board)
            #expect(try asker.store.askHandover(of: board.id, from: holder.identity.id, to: asker.identity))
            #expect(!(try holder.store.beginHandover(of: board.id, by: holder.identity, to: "other")))
            guard case .held(_, _, releasing: true) = try asker.take(board) else {
                Issue.record("the asker's handover was overwritten")
                return
            }
            try other.store.giveUpHandover(of: board.id, to: other.identity)
            guard case .held(_, _, releasing: true) = try asker.take(board) else {
                Issue.record("another node cleared the asker's mark")
                return
            }
            try asker.store.giveUpHandover(of: board.id, to: asker.identity)
            guard case .held(_, _, releasing: false) = try asker.take(board) else {
                Issue.record("the asker's mark outlived its giving up")
                return
            }
            #expect(try asker.store.askHandover(of: board.id, from: holder.identity.id, to: asker.identity))
        }
    }

    @Test("a node starting is announced to the other nodes, by name")
    func aStartingNodeIsAnnounced() throws {
        try withPostgres { server in
            let listener = try TestNode(server, name: "listener")
            try listener.store.connection.execute("LISTEN \(PostgresStore.nodesChannel)")
            _ = try TestNode(server, name: "newcomer")
            let heard = try listener.store.connection.notifications(waitingUpTo: 2_000)
            #expect(heard.map(\.channel) == [PostgresStore.nodesChannel])
            #expect(heard.map(\.payload) == ["newcomer"])
        }
    }

    @Test(
        "the lease keeper answers at once for a live holder, waits for a draining holder's release, keeps its own leases by renewing, and reports the leases another node took as lost"
    )
    func theKeeperWaitsForDrainsRenewsAndReportsLosses() throws {
        try withPostgres { server in
            let lost = Locked<[Int64]>([])
            let keeper = try LeaseKeeper(
                url: server.url, name: "keeper", address: "127.0.0.1:1", timing: LeaseTiming(ttl: .milliseconds(600)),
                lost: { documents in lost.withLock { $0 += documents } })
            defer { keeper.stop() }
            let holder = try TestNode(server, name: "holder")
            let (held, mine) = (
                try newDocument(holder.store, "keeper/held"), try newDocument(holder.store, "keeper/mine")
            )
            _ = try holder.granted(held)
            // A live holder: the answer names it at once, whatever the wait.
            var started = Date()
            guard
                case .held(let by, _, releasing: false) = try take(held, on: keeper, waitingUpTo: .seconds(3)).answer()
            else {
                Issue.record("a live holder's lease was not answered as held")
                return
            }
            #expect(by == holder.identity)
            #expect(Date().timeIntervalSince(started) < 1)
            // A draining holder: the keeper waits, and a release wakes it.
            try holder.store.markDraining(holder.identity)
            started = Date()
            let waiting = take(held, on: keeper, waitingUpTo: .seconds(5))
            Thread.sleep(forTimeInterval: 0.3)
            try holder.store.releaseLease(of: held.id, by: holder.identity)
            guard case .granted = try waiting.answer() else {
                Issue.record("the keeper did not get the released lease")
                return
            }
            let waited = Date().timeIntervalSince(started)
            #expect(waited >= 0.3 && waited < 3, "granted \(waited) s after asking, 0.3 s after the release")
            // Held across several renewals, its lease stays the keeper's.
            guard case .granted(let lease) = try take(mine, on: keeper, waitingUpTo: .zero).answer() else {
                Issue.record("no lease of a free document")
                return
            }
            Thread.sleep(forTimeInterval: 1.5)
            guard case .held(let holderOfMine, _, _) = try holder.take(mine) else {
                Issue.record("the keeper's lease lapsed while it renewed")
                return
            }
            #expect(holderOfMine == keeper.node)
            // Taken from the keeper as if it had been cut off: it notices at its next renewal.
            try holder.store.connection.query("UPDATE leases SET node = $1, fence = fence + 1 WHERE document = $2") {
                $0.append(holder.identity.id)
                $0.append(mine.id)
            }
            try holder.store.connection.query("UPDATE nodes SET expires_at = now() WHERE id = $1") {
                $0.append(keeper.node.id)
            }
            let deadline = Date().addingTimeInterval(3)
            while lost.value.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            #expect(lost.value == [mine.id])
            #expect(lease.fence == 1)
        }
    }

    /// A take on the keeper, answered later on its thread.
    struct PendingTake {
        let answered = DispatchSemaphore(value: 0)
        let result = Locked<Result<LeaseAnswer, PostgresError>?>(nil)

        func answer() throws -> LeaseAnswer {
            #expect(answered.wait(timeout: .now() + 10) == .success)
            return try #require(result.value).get()
        }
    }

    private func take(_ document: PostgresDocument, on keeper: LeaseKeeper, waitingUpTo wait: Duration) -> PendingTake {
        let pending = PendingTake()
        keeper.take(document, waitingUpTo: wait) { result in
            pending.result.withLock { $0 = result }
            pending.answered.signal()
        }
        return pending
    }
}
