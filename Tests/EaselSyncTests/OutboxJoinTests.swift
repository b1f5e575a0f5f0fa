import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport
import Testing

/// What waits in a client's outbox travels as runs: keys typed on, and
/// characters deleted on, join the unsent op before them, which another
/// replica merges to the same state.
@Suite struct OutboxJoinTests {
    func offlineClient() throws -> SyncClient {
        SyncClient(
            document: try DocumentName("boards/outbox"), user: ServerHarness.user("ann"), replica: alice,
            at: Timestamp(milliseconds: 0))
    }

    @Test func keysTypedOnWhileOfflineTravelAsOneOpAndMergeToTheSameText() throws {
        var client = try offlineClient()
        let now = Timestamp(milliseconds: 1)
        try client.perform(.place(.text("Notes", font: "DejaVu Sans", size: 24), at: Point(x: 0, y: 0)), at: now)
        let text = try #require(client.editor.document.entities.first?.id)
        for (index, key) in " from Ann".unicodeScalars.enumerated() {
            try client.perform(.replaceText(text, range: 5 + index..<5 + index, with: [key]), at: now)
        }
        for index in (11..<14).reversed() {  // backspacing "Ann"
            try client.perform(.replaceText(text, range: index..<index + 1, with: []), at: now)
        }
        try client.perform(.replaceText(text, range: 0..<0, with: ["!"]), at: now)  // not typed on: its own op
        let ops = client.unacknowledged
        #expect(ops.count == 4, "the create, the typing, the backspacing, the key elsewhere")
        var peer = Document()
        for op in ops { peer.apply(op) }
        #expect(peer.textString(of: text) == "!Notes from ")
        #expect(peer.stateHash == client.editor.document.stateHash)
    }

    @Test func opsOfOneTransactionOrAlreadySentNeverJoin() throws {
        var client = try offlineClient()
        let now = Timestamp(milliseconds: 1)
        try client.perform(.place(.text("ab", font: "DejaVu Sans", size: 24), at: Point(x: 0, y: 0)), at: now)
        let text = try #require(client.editor.document.entities.first?.id)
        // A replace is a delete and an insert in one transaction: the next key stays apart.
        try client.perform(.replaceText(text, range: 1..<2, with: ["c"]), at: now)
        try client.perform(.replaceText(text, range: 2..<2, with: ["d"]), at: now)
        #expect(client.unacknowledged.count == 4)
    }
}
