import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Editor: undo and redo")
struct UndoTests {
    let star = Canvas.star
    let square = Canvas.square

    func moved(_ editor: inout Editor, _ id: EntityID, by offset: Vector) throws {
        let centre = try #require(editor.document[id].map { Point(x: $0.transform.x, y: $0.transform.y) })
        try editor.send(.dragBegan(at: centre))
        try editor.send(.dragEnded(translation: offset))
    }

    @Test("undo of a set restores the value from before the step")
    func undoOfSetRestoresThePreviousValue() throws {
        var editor = Canvas.editor()
        try moved(&editor, star, by: Vector(dx: 10, dy: 0))
        // y was written with the value it had, so only x has something to restore.
        #expect(try editor.perform(.undo) == [Canvas.aliceOp(9, .set(star, .x(100)))])
        #expect(editor.document[star]?.transform == Transform(x: 100, y: 100))
    }

    @Test("undo of a create deletes and undo of a delete restores")
    func undoOfCreateDeletesAndOfDeleteRestores() throws {
        var editor = Canvas.editor()
        let placed = try editor.perform(.place(.emoji("🦊", size: 40), at: Point(x: 700, y: 700)))
        let fox = placed[0].entity
        #expect(try editor.perform(.undo) == [Canvas.aliceOp(8, .delete(fox))])
        #expect(editor.document[fox] == nil)
        try editor.send(.tap(at: Point(x: 100, y: 100)))
        try editor.perform(.deleteSelection)
        #expect(try editor.perform(.undo) == [Canvas.aliceOp(10, .restore(star))])
        #expect(editor.document[star] != nil)
    }

    @Test("undo never clobbers a later edit by another replica")
    func undoLeavesALaterRemoteEditAlone() throws {
        var editor = Canvas.editor()
        try moved(&editor, star, by: Vector(dx: 10, dy: 5))
        editor.receive([op(20, bob, .set(star, .x(999)))])
        let undo = try editor.perform(.undo)
        #expect(undo == [Canvas.aliceOp(21, .set(star, .y(100)))])
        #expect(editor.document[star]?.transform == Transform(x: 999, y: 100))
    }

    @Test("an editor with nothing to undo keeps no record of foreign writes, and its later undo still spares a later edit")
    func foreignWritesAreKeptOnlyWhileThereIsSomethingToUndo() throws {
        var editor = Canvas.editor()
        editor.receive([op(20, bob, .set(star, .x(150)))])
        #expect(editor.history.foreignWrites.isEmpty, "nothing to undo: nothing to protect")
        try moved(&editor, star, by: Vector(dx: 10, dy: 5))
        editor.receive([op(40, bob, .set(star, .y(777)))])
        #expect(editor.history.foreignWrites.count == 1)
        let undo = try editor.perform(.undo)
        #expect(undo.count == 1, "x goes back; bob's later y stays: \(undo)")
        #expect(editor.document[star]?.transform == Transform(x: 150, y: 777))
    }

    @Test("undo right after a snapshot rebase never clobbers a later edit the snapshot brought")
    func undoAfterARebaseLeavesTheSnapshotsLaterEditAlone() throws {
        var editor = Canvas.editor()
        try moved(&editor, star, by: Vector(dx: 10, dy: 5))
        // The server compacted: bob's later move arrives only inside a snapshot.
        var server = editor.document
        server.apply(op(20, bob, .set(star, .x(999))))
        var snapshot = Document()
        for op in server.snapshotOps { snapshot.apply(op) }
        editor.rebase(onto: snapshot, reapplying: [])
        let undo = try editor.perform(.undo)
        #expect(undo == [Canvas.aliceOp(21, .set(star, .y(100)))])
        #expect(editor.document[star]?.transform == Transform(x: 999, y: 100))
    }

    @Test("undo still restores a field another replica wrote only before the step")
    func undoRestoresOverAnEarlierRemoteEdit() throws {
        var editor = Canvas.editor()
        editor.receive([op(7, bob, .set(star, .x(50)))])
        try moved(&editor, star, by: Vector(dx: 10, dy: 0))
        #expect(try editor.perform(.undo) == [Canvas.aliceOp(10, .set(star, .x(50)))])
    }

    @Test("undo then redo leaves the document as it was")
    func undoThenRedoIsIdentity() throws {
        var editor = Canvas.editor()
        try editor.send(.tap(at: Point(x: 100, y: 100)))
        try editor.send(.tap(at: Point(x: 300, y: 100)))
        try moved(&editor, star, by: Vector(dx: 7, dy: -3))
        try editor.perform(.setStyle(.color(.white)))
        try editor.perform(.duplicateSelection)
        try editor.perform(.deleteSelection)
        let before = editor.document.entities
        for _ in 0..<4 { try editor.perform(.undo) }
        #expect(editor.document.entities == Canvas.editor().document.entities)
        for _ in 0..<4 { try editor.perform(.redo) }
        #expect(editor.document.entities == before)
        #expect(!editor.canRedo)
    }

    @Test("undo across a remote delete writes nothing and leaves the entity deleted")
    func undoAcrossARemoteDelete() throws {
        var editor = Canvas.editor()
        try moved(&editor, star, by: Vector(dx: 10, dy: 0))
        editor.receive([op(20, bob, .delete(star))])
        #expect(try editor.perform(.undo).isEmpty)
        #expect(editor.document.isDeleted(star))
        #expect(!editor.canUndo)
    }

    @Test("undo of a create that another replica already deleted writes nothing")
    func undoOfCreateAfterRemoteDelete() throws {
        var editor = Canvas.editor()
        let fox = try editor.perform(.place(.emoji("🦊", size: 40), at: Point(x: 700, y: 700)))[0].entity
        editor.receive([op(30, bob, .delete(fox)), op(31, bob, .restore(fox))])
        #expect(try editor.perform(.undo).isEmpty)
        #expect(editor.document[fox] != nil)
    }

    @Test("canUndo, canRedo and hasChanges follow the history; markSaved resets hasChanges")
    func undoFlagsFollowTheHistory() throws {
        var editor = Canvas.editor()
        #expect(!editor.canUndo && !editor.canRedo && !editor.hasChanges)
        try moved(&editor, star, by: Vector(dx: 1, dy: 0))
        #expect(editor.canUndo && !editor.canRedo && editor.hasChanges)
        editor.markSaved()
        #expect(!editor.hasChanges)
        try editor.perform(.undo)
        #expect(!editor.canUndo && editor.canRedo && editor.hasChanges)
        try editor.perform(.redo)
        #expect(editor.canUndo && !editor.canRedo)
        try moved(&editor, square, by: Vector(dx: 1, dy: 0))
        try editor.perform(.undo)
        try moved(&editor, square, by: Vector(dx: 2, dy: 0))
        #expect(!editor.canRedo, "a new edit clears redo")
    }

    @Test("remote ops are not undoable by this replica")
    func remoteOpsAreNotUndoable() {
        var editor = Canvas.editor()
        editor.receive([op(7, bob, .set(Canvas.star, .x(1)))])
        #expect(!editor.canUndo && !editor.hasChanges)
    }
}
