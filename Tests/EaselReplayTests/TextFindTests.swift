import EaselModel
import EaselProtocol
import EaselReplay
import Testing

/// `--find 'typed …'` and `--find 'deleted …'`: who typed and who deleted
/// the characters of a piece of text, found by their IDs.
@Suite struct TextFindTests {
    /// Ann places "Meeting notes"; Bob types " from Bob" at its end; Ann
    /// types "!" after "Bob"; Bob deletes "notes" and Ann's "!".
    func history() throws -> (OpHistory, EntityID) {
        var ann = Editor(replica: ReplicaID(rawValue: 0xA1))
        var bob = Editor(replica: ReplicaID(rawValue: 0xB2))
        var logged: [LoggedOp] = []
        func record(_ ops: [Op], by author: String) {
            for op in ops {
                logged.append(LoggedOp(position: UInt64(logged.count + 1), op: op, author: author, receivedAt: 0))
            }
        }
        let placed = try ann.perform(.place(.text("Meeting notes", font: "DejaVu Sans", size: 24), at: Point(x: 0, y: 0)))
        record(placed, by: "ann")
        let text = placed[0].entity
        bob.receive(placed)
        let typed = try bob.perform(.replaceText(text, range: 13..<13, with: Array(" from Bob".unicodeScalars)))
        record(typed, by: "bob")
        ann.receive(typed)
        let bang = try ann.perform(.replaceText(text, range: 22..<22, with: ["!"]))
        record(bang, by: "ann")
        bob.receive(bang)
        record(try bob.perform(.replaceText(text, range: 8..<13, with: [])), by: "bob")
        record(try bob.perform(.replaceText(text, range: 17..<18, with: [])), by: "bob")
        #expect(bob.document.textString(of: text) == "Meeting  from Bob")
        return (OpHistory(name: "text/find", ops: logged), text)
    }

    @Test func typedTextIsFoundWithTheOpsThatTypedEachPart() throws {
        let (history, text) = try history()
        let search = try #require(try TextFind(parsing: "typed \"g  from\""))
        let findings = search.findings(in: try history.document(at: nil), ops: history.ops)
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.text == text && finding.index == 6)
        #expect(finding.parts.map(\.text) == ["g ", " from"])
        #expect(finding.parts.map { $0.typed?.author } == ["ann", "bob"])
        #expect(finding.parts.map { $0.typed?.position } == [1, 2])
        #expect(finding.parts.allSatisfy { $0.deleted == nil })
    }

    @Test func deletedTextIsFoundWithWhoTypedAndWhoDeletedIt() throws {
        let (history, _) = try history()
        let search = try #require(try TextFind(parsing: "deleted notes!"))
        let finding = try #require(search.findings(in: try history.document(at: nil), ops: history.ops).first)
        #expect(finding.parts.map(\.text) == ["notes", "!"])
        #expect(finding.parts.map { $0.typed?.author } == ["ann", "ann"])
        #expect(finding.parts.map { $0.deleted?.position } == [4, 5])
        #expect(finding.parts.map { $0.deleted?.author } == ["bob", "bob"])
    }

    @Test func textDeletedBeforeALogsBaseSnapshotIsNotFoundSinceSnapshotsKeepNoDeletedScalars() throws {
        let (history, _) = try history()
        let base = try history.document(at: nil)
        let compacted = OpHistory(
            name: "text/compacted",
            base: StateSnapshot(position: UInt64(history.ops.count), state: base.snapshotOps, highWater: [:]), ops: [])
        let document = try compacted.document(at: nil)
        let typed = try #require(try TextFind(parsing: "typed \"g  from\""))
        #expect(typed.findings(in: document, ops: compacted.ops).count == 1)
        let deleted = try #require(try TextFind(parsing: "deleted notes!"))
        #expect(deleted.findings(in: document, ops: compacted.ops).isEmpty)
        #expect(deleted.findings(in: base, ops: history.ops).count == 1)
    }

    @Test func textThatIsNowhereIsNotFoundAndOtherPredicatesAreNotTextFinds() throws {
        let (history, _) = try history()
        let search = try #require(try TextFind(parsing: "typed notes"))
        #expect(search.findings(in: try history.document(at: nil), ops: history.ops).isEmpty, "notes was deleted")
        #expect(try TextFind(parsing: "count > 3") == nil)
        #expect(throws: ReplayError.self) { try TextFind(parsing: "typed ") }
    }
}
