@testable import EaselModel
import EaselTestSupport
import Testing

/// Editing a text through the editor: keystrokes as character ops, undo a
/// word at a time that never takes anyone else's characters, carets kept by
/// character.
@Suite struct EditorTextTests {
    /// An editor with one text, "", placed and selected.
    static func editorWithText(_ replica: UInt64 = 0xA1, string: String = "") throws -> (Editor, EntityID) {
        var editor = Editor(replica: ReplicaID(rawValue: replica))
        let ops = try editor.perform(.place(.text(string, font: "Georgia", size: 24), at: Point(x: 100, y: 100)))
        return (editor, ops[0].entity)
    }

    /// Types `string` a key at a time at the end, as the page sends keys.
    static func type(_ string: String, into text: EntityID, with editor: inout Editor) throws -> [Op] {
        var ops: [Op] = []
        for scalar in string.unicodeScalars {
            let end = editor.document.textSequenceForEditing(of: text).count
            ops += try editor.perform(.replaceText(text, range: end..<end, with: [scalar]))
        }
        return ops
    }

    @Test func keystrokesAreCharacterOpsAndUndoTakesBackAWordAtATime() throws {
        var (editor, text) = try Self.editorWithText()
        let ops = try Self.type("hello big world", into: text, with: &editor)
        #expect(ops.allSatisfy { if case .insertText = $0.action { true } else { false } })
        #expect(editor.document.textString(of: text) == "hello big world")
        _ = try editor.perform(.undo)
        #expect(editor.document.textString(of: text) == "hello big ")
        _ = try editor.perform(.undo)
        #expect(editor.document.textString(of: text) == "hello ")
        _ = try editor.perform(.undo)
        #expect(editor.document.textString(of: text) == "")
        _ = try editor.perform(.redo)
        _ = try editor.perform(.redo)
        #expect(editor.document.textString(of: text) == "hello big ")
    }

    @Test func undoOfTypingNeverRemovesAPeersCharacters() throws {
        var (ann, text) = try Self.editorWithText(0xA1)
        let created = ann.document.snapshotOps
        var bob = Editor(replica: ReplicaID(rawValue: 0xB0))
        bob.receive(created)
        let typed = try Self.type("hello", into: text, with: &ann)
        bob.receive(typed)
        // Bob types into the middle of Ann's word; Ann then undoes hers.
        let bobs = try bob.perform(.replaceText(text, range: 2..<2, with: Array("XY".unicodeScalars)))
        ann.receive(bobs)
        #expect(ann.document.textString(of: text) == "heXYllo")
        let undo = try ann.perform(.undo)
        bob.receive(undo)
        #expect(ann.document.textString(of: text) == "XY")
        #expect(bob.document.textString(of: text) == "XY")
    }

    @Test func undoOfADeleteTypesTheCharactersAgainWhereTheyStood() throws {
        var (editor, text) = try Self.editorWithText()
        _ = try Self.type("one two three", into: text, with: &editor)
        _ = try editor.perform(.replaceText(text, range: 3..<7, with: []))
        #expect(editor.document.textString(of: text) == "one three")
        _ = try editor.perform(.undo)
        #expect(editor.document.textString(of: text) == "one two three")
        _ = try editor.perform(.redo)
        #expect(editor.document.textString(of: text) == "one three")
    }

    @Test func aWholeStringEditChangesOnlyWhatDiffersSoConcurrentEditsBothStay() throws {
        var (ann, text) = try Self.editorWithText(0xA1, string: "Meeting notes")
        var bob = Editor(replica: ReplicaID(rawValue: 0xB0))
        bob.receive(ann.document.snapshotOps)
        let fromAnn = try ann.perform(.editText(text, "Meeting notes from Ann"))
        let byBob = try bob.perform(.editText(text, "Team meeting notes"))
        ann.receive(byBob)
        bob.receive(fromAnn)
        #expect(ann.document.textString(of: text) == "Team meeting notes from Ann")
        #expect(ann.document.canonicalEncoding == bob.document.canonicalEncoding)
    }

    @Test func anEditorTalkingToAnOlderServerWritesTheWholeString() throws {
        var (editor, text) = try Self.editorWithText(string: "abc")
        editor.state.textMergesCharacters = false
        let ops = try editor.perform(.replaceText(text, range: 1..<2, with: ["X"]))
        #expect(ops.map(\.action) == [.set(text, .text("aXc"))])
    }

    @Test func aPasteLongerThanOneOpIsSeveralInsertsInOneStep() throws {
        var (editor, text) = try Self.editorWithText()
        let long = String(repeating: "ab", count: ModelLimits.scalarsPerInsert)
        let ops = try editor.perform(.replaceText(text, range: 0..<0, with: Array(long.unicodeScalars)))
        #expect(ops.count == 2 && Set(ops.map(\.transaction)).count == 1)
        #expect(editor.document.textString(of: text) == long)
        _ = try editor.perform(.undo)
        #expect(editor.document.textString(of: text) == "")
    }

    @Test func aCaretStaysAfterTheCharacterItFollowedThroughRemoteInsertsAndDeletesBeforeIt() {
        var text = TextSequence()
        let ann = ReplicaID(rawValue: 1)
        let bob = ReplicaID(rawValue: 2)
        text.insert(Array("abcdef".unicodeScalars), at: 0, id: OpID(counter: 1, replica: ann))
        var peer = text
        let caret = text.anchor(at: 3)  // after "c"
        #expect(text.position(of: caret) == 3)
        // Bob types at the start, deletes "a", types right after "c" and
        // later deletes "c" itself: the caret keeps to "c".
        let typed = peer.insert(Array("XY".unicodeScalars), at: 0, id: OpID(counter: 10, replica: bob))
        text.apply(.insert(typed))
        #expect(text.position(of: caret) == 5)
        text.apply(.delete(peer.delete(2..<3)))
        #expect(text.string == "XYbcdef" && text.position(of: caret) == 4)
        text.apply(.insert(peer.insert(Array("!".unicodeScalars), at: 4, id: OpID(counter: 20, replica: bob))))
        #expect(text.string == "XYbc!def" && text.position(of: caret) == 4)
        text.apply(.delete(peer.delete(3..<4)))
        #expect(text.string == "XYb!def" && text.position(of: caret) == 3, "where the deleted c stood")
        #expect(text.position(of: .start) == 0)
    }

    @Test func theEditorsCaretFollowsItsOwnTypingAndKeepsItsPlaceThroughAPeersEdits() throws {
        var (editor, text) = try Self.editorWithText(string: "Meeting notes")
        var peer = Editor(replica: ReplicaID(rawValue: 0xB2), document: editor.document)
        try editor.placeCaret(in: text, anchor: 13, head: 13)
        _ = try Self.type(" from Ann", into: text, with: &editor)
        #expect(editor.caretPositions! == (22, 22))
        // Bob types at the start and deletes "notes" before the caret.
        var bobOps = try peer.perform(.replaceText(text, range: 0..<0, with: Array("Our ".unicodeScalars)))
        bobOps += try peer.perform(.replaceText(text, range: 12..<17, with: []))
        editor.receive(bobOps)
        #expect(editor.document.textString(of: text) == "Our Meeting  from Ann")
        #expect(editor.caretPositions! == (21, 21))
        try editor.placeCaret(in: text, anchor: 4, head: 99)
        #expect(editor.caretPositions! == (4, 21), "a place past the end is the end")
    }

    @Test func theCaretLeavesWithItsTextWhenAPeerDeletesIt() throws {
        var (editor, text) = try Self.editorWithText(string: "gone")
        var peer = Editor(replica: ReplicaID(rawValue: 0xB2), document: editor.document)
        try editor.placeCaret(in: text, anchor: 0, head: 4)
        editor.receive(try peer.perform(.clearAll))
        #expect(editor.state.textCaret == nil && editor.caretPositions == nil)
    }
}
