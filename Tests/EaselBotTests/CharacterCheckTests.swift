@testable import EaselBot
import EaselBotScript
import EaselModel
import Testing

/// The fleet verdict's check on texts finds each acknowledged character
/// where the CRDT says, and names what is not.
@Suite struct CharacterCheckTests {
    func typed() throws -> (Editor, [Op]) {
        var ann = Editor(replica: ReplicaID(rawValue: 0xA1))
        let place = try ann.perform(.place(.text("", font: "DejaVu Sans", size: 24), at: Point(x: 0, y: 0)))
        let text = place[0].entity
        var ops = try ann.perform(.replaceText(text, range: 0..<0, with: Array("hello world".unicodeScalars)))
        ops += try ann.perform(.replaceText(text, range: 0..<6, with: []))
        return (ann, ops)
    }

    @Test func charactersWhereTheCRDTPutThemPass() throws {
        let (ann, ops) = try typed()
        var check = CharacterCheck()
        for op in ops { check.note(op, by: "bot-1") }
        let result = check.problems(in: ann.document)
        #expect(result.checked == 11 && result.problems.isEmpty, "\(result.problems)")
    }

    @Test func aCharacterDeletedWithoutAnAcknowledgedDeleteIsNamed() throws {
        let (ann, ops) = try typed()
        var check = CharacterCheck()
        // The delete was never acknowledged: its characters should be there.
        for op in ops.dropLast() { check.note(op, by: "bot-1") }
        let result = check.problems(in: ann.document)
        #expect(result.problems.count == 6)
        #expect(result.problems.first?.contains("deleted but no acknowledged op deleted it") == true)
    }

    @Test func aCharacterMissingFromTheServersDocumentIsNamed() throws {
        let (ann, ops) = try typed()
        var check = CharacterCheck()
        for op in ops { check.note(op, by: "bot-1") }
        // A document that holds the text but lost the typing.
        var lost = Document()
        for op in ann.document.snapshotOps where !ops.contains(where: { $0.id == op.id }) { lost.apply(op) }
        let result = check.problems(in: lost)
        #expect(result.problems.contains { $0.contains("is not in the text") }, "\(result.problems)")
    }
}
