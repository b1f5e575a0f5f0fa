import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Editor: gestures")
struct GestureTests {
    let star = Canvas.star
    let square = Canvas.square

    @Test("tap on an unselected entity selects it")
    func tapOnUnselectedEntitySelectsIt() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.tap(at: Point(x: 100, y: 100))) { $0.selection = [star] }
        try store.send(.tap(at: Point(x: 300, y: 100))) { $0.selection = [star, square] }
    }

    @Test("tap on a selected entity unselects it")
    func tapOnSelectedEntityUnselectsIt() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.tap(at: Point(x: 100, y: 100))) { $0.selection = [star] }
        try store.send(.tap(at: Point(x: 105, y: 95))) { $0.selection = [] }
    }

    @Test("tap on the background clears the selection")
    func tapOnBackgroundClearsSelection() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.tap(at: Point(x: 100, y: 100))) { $0.selection = [star] }
        try store.send(.tap(at: Point(x: 300, y: 100))) { $0.selection = [star, square] }
        try store.send(.tap(at: Point(x: 900, y: 900))) { $0.selection = [] }
    }

    @Test("drag on a selected entity moves the whole selection in one transaction")
    func dragOnSelectedEntityMovesTheWholeSelection() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.tap(at: Point(x: 100, y: 100))) { $0.selection = [star] }
        try store.send(.tap(at: Point(x: 300, y: 100))) { $0.selection = [star, square] }
        try store.send(.dragBegan(at: Point(x: 300, y: 100))) { $0.gesture = .moving([star, square], by: .zero) }
        try store.send(.dragChanged(translation: Vector(dx: 5, dy: 5))) {
            $0.gesture = .moving([star, square], by: Vector(dx: 5, dy: 5))
        }
        try store.send(
            .dragEnded(translation: Vector(dx: 10, dy: -20)),
            ops: [
                Canvas.aliceOp(7, .set(star, .x(110))), Canvas.aliceOp(8, in: 7, .set(star, .y(80))),
                Canvas.aliceOp(9, in: 7, .set(square, .x(310))), Canvas.aliceOp(10, in: 7, .set(square, .y(80))),
            ]
        ) { $0.gesture = nil }
    }

    @Test("drag on an unselected entity moves only that entity and leaves the selection alone")
    func dragOnUnselectedEntityMovesOnlyThatEntity() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.tap(at: Point(x: 100, y: 100))) { $0.selection = [star] }
        try store.send(.dragBegan(at: Point(x: 300, y: 100))) { $0.gesture = .moving([square], by: .zero) }
        try store.send(
            .dragEnded(translation: Vector(dx: 1, dy: 2)),
            ops: [Canvas.aliceOp(7, .set(square, .x(301))), Canvas.aliceOp(8, in: 7, .set(square, .y(102)))]
        ) { $0.gesture = nil }
        #expect(store.editor.document[star]?.transform == Transform(x: 100, y: 100))
    }

    @Test("drag on the background pans the document")
    func dragOnBackgroundPans() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.dragBegan(at: Point(x: 900, y: 900))) { $0.gesture = .panning(by: .zero) }
        try store.send(.dragChanged(translation: Vector(dx: 30, dy: 0))) {
            $0.gesture = .panning(by: Vector(dx: 30, dy: 0))
        }
        #expect(store.editor.state.displayedViewport.pan == Vector(dx: 30, dy: 0))
        try store.send(.dragEnded(translation: Vector(dx: 40, dy: 10))) {
            $0.gesture = nil
            $0.viewport = Viewport(pan: Vector(dx: 40, dy: 10), zoom: 1)
        }
        // Screen points now map through the pan: the star sits at (140, 110).
        try store.send(.tap(at: Point(x: 140, y: 110))) { $0.selection = [star] }
    }

    @Test("pinch with a selection scales the selection")
    func pinchWithSelectionScalesTheSelection() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.tap(at: Point(x: 100, y: 100))) { $0.selection = [star] }
        try store.send(.pinchBegan(around: Point(x: 0, y: 0))) { $0.gesture = .scaling([star], by: 1) }
        try store.send(.pinchChanged(scale: 1.5)) { $0.gesture = .scaling([star], by: 1.5) }
        try store.send(.pinchEnded(scale: 2), ops: [Canvas.aliceOp(7, .set(star, .scale(2)))]) { $0.gesture = nil }
    }

    @Test("pinch with no selection zooms the document about the pinch")
    func pinchWithoutSelectionZoomsTheDocument() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.pinchBegan(around: Point(x: 100, y: 100))) {
            $0.gesture = .zooming(around: Point(x: 100, y: 100), by: 1)
        }
        try store.send(.pinchEnded(scale: 2)) {
            $0.gesture = nil
            $0.viewport = Viewport(pan: Vector(dx: -100, dy: -100), zoom: 2)
        }
        // The star's centre stayed under the pinch.
        #expect(store.editor.state.viewport.screenPoint(fromDocument: Point(x: 100, y: 100)) == Point(x: 100, y: 100))
        try store.perform(.resetViewport) { $0.viewport = .standard }
    }

    @Test("rotate with a selection rotates it")
    func rotateWithSelectionRotatesIt() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.tap(at: Point(x: 300, y: 100))) { $0.selection = [square] }
        try store.send(.rotateBegan) { $0.gesture = .rotating([square], by: 0) }
        try store.send(.rotateChanged(angle: 0.5)) { $0.gesture = .rotating([square], by: 0.5) }
        try store.send(.rotateEnded(angle: 0.75), ops: [Canvas.aliceOp(7, .set(square, .rotation(0.75)))]) {
            $0.gesture = nil
        }
    }

    @Test("rotate with no selection does nothing")
    func rotateWithoutSelectionDoesNothing() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.rotateBegan)
        try store.send(.rotateEnded(angle: 1))
    }

    @Test("while a gesture is in flight the document does not change; the transient transform is shown")
    func documentDoesNotChangeDuringAGesture() throws {
        var store = EditorTestStore(Canvas.editor())
        let before = store.editor.document.canonicalEncoding
        try store.send(.dragBegan(at: Point(x: 100, y: 100))) { $0.gesture = .moving([star], by: .zero) }
        try store.send(.dragChanged(translation: Vector(dx: 50, dy: 0))) {
            $0.gesture = .moving([star], by: Vector(dx: 50, dy: 0))
        }
        #expect(store.editor.document.canonicalEncoding == before)
        let entity = try #require(store.editor.document[star])
        #expect(store.editor.state.displayedTransform(of: entity).x == 150)
    }

    @Test("a gesture's end applies its delta to the current values, keeping a remote move made meanwhile")
    func gestureEndAppliesDeltaToCurrentValues() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.dragBegan(at: Point(x: 100, y: 100))) { $0.gesture = .moving([star], by: .zero) }
        store.receive([op(7, bob, .set(star, .y(500)))])
        try store.send(
            .dragEnded(translation: Vector(dx: 10, dy: 10)),
            ops: [Canvas.aliceOp(8, .set(star, .x(110))), Canvas.aliceOp(9, in: 8, .set(star, .y(510)))]
        ) { $0.gesture = nil }
    }

    @Test("a gesture on an entity deleted meanwhile is dropped")
    func gestureOnDeletedEntityIsDropped() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.tap(at: Point(x: 100, y: 100))) { $0.selection = [star] }
        try store.send(.dragBegan(at: Point(x: 100, y: 100))) { $0.gesture = .moving([star], by: .zero) }
        store.receive([op(7, bob, .delete(star))]) {
            $0.selection = []
            $0.gesture = .moving([], by: .zero)
        }
        try store.send(.dragEnded(translation: Vector(dx: 10, dy: 10))) { $0.gesture = nil }
        #expect(store.editor.document.isDeleted(star))
    }

    @Test("a cancelled gesture commits nothing")
    func cancelledGestureCommitsNothing() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.dragBegan(at: Point(x: 100, y: 100))) { $0.gesture = .moving([star], by: .zero) }
        try store.send(.dragChanged(translation: Vector(dx: 3, dy: 3))) {
            $0.gesture = .moving([star], by: Vector(dx: 3, dy: 3))
        }
        try store.send(.dragCancelled) { $0.gesture = nil }
        #expect(!store.editor.canUndo)
    }

    @Test("drag translations are screen units, divided by the zoom")
    func dragTranslationFollowsTheZoom() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.pinchBegan(around: .zero)) { $0.gesture = .zooming(around: .zero, by: 1) }
        try store.send(.pinchEnded(scale: 2)) {
            $0.gesture = nil
            $0.viewport = Viewport(pan: .zero, zoom: 2)
        }
        try store.send(.dragBegan(at: Point(x: 200, y: 200))) { $0.gesture = .moving([star], by: .zero) }
        try store.send(
            .dragEnded(translation: Vector(dx: 20, dy: 0)),
            ops: [Canvas.aliceOp(7, .set(star, .x(110))), Canvas.aliceOp(8, in: 7, .set(star, .y(100)))]
        ) { $0.gesture = nil }
    }

    @Test("the same reducers tap, drag, pinch and rotate every kind of entity", arguments: Canvas.all)
    func sameReducersServeEveryKind(_ entity: EntityID) throws {
        let centre = try #require(Canvas.centres[entity])
        var store = EditorTestStore(Canvas.editor())
        try store.send(.tap(at: centre)) { $0.selection = [entity] }
        try store.send(.dragBegan(at: centre)) { $0.gesture = .moving([entity], by: .zero) }
        let before = try #require(store.editor.document[entity]).transform
        try store.send(
            .dragEnded(translation: Vector(dx: 1, dy: 1)),
            ops: [
                Canvas.aliceOp(7, .set(entity, .x(before.x + 1))),
                Canvas.aliceOp(8, in: 7, .set(entity, .y(before.y + 1))),
            ]
        ) { $0.gesture = nil }
        try store.send(.pinchBegan(around: centre)) { $0.gesture = .scaling([entity], by: 1) }
        try store.send(.pinchEnded(scale: 3), ops: [Canvas.aliceOp(9, .set(entity, .scale(3)))]) { $0.gesture = nil }
        try store.send(.rotateBegan) { $0.gesture = .rotating([entity], by: 0) }
        try store.send(.rotateEnded(angle: 1), ops: [Canvas.aliceOp(10, .set(entity, .rotation(1)))]) {
            $0.gesture = nil
        }
    }

    @Test("drawing streams samples as appends while the finger moves, as one transaction")
    func drawingStreamsSamplesInOneTransaction() throws {
        var store = EditorTestStore(Canvas.editor())
        let settings = DrawingSettings(tool: .marker, color: .white, weight: 8, endCap: .arrow)
        try store.perform(.setDrawing(settings)) { $0.drawing = settings }
        var editor = store.editor
        let began = try editor.send(.drawBegan(DrawPoint(location: Point(x: 600, y: 600), time: 0, force: 0.5)))
        let stroke = EntityID(opID(7, alice))
        #expect(began.count == 2)
        guard case .create(.stroke, let fields) = began[0].action else {
            Issue.record("the first op must create the stroke")
            return
        }
        #expect(fields.contains(.tool(.marker)) && fields.contains(.color(.white)) && fields.contains(.weight(8)))
        #expect(fields.contains(.endCap(.arrow)) && fields.contains(.x(600)) && fields.contains(.y(600)))
        #expect(began[1] == Canvas.aliceOp(8, in: 7, .append(stroke, start: 0, samples: [sample(0, 0, 0, force: 0.5)])))
        #expect(editor.document[stroke] != nil)

        let moved = try editor.send(
            .drawMoved([
                DrawPoint(location: Point(x: 610, y: 600), time: 0.1),
                DrawPoint(location: Point(x: 620, y: 605), time: 0.2),
            ]))
        #expect(
            moved == [
                Canvas.aliceOp(9, in: 7, .append(stroke, start: 1, samples: [sample(10, 0, 0.1), sample(20, 5, 0.2)]))
            ])
        #expect(
            editor.state.gesture
                == .drawing(
                    StrokeInProgress(
                        stroke: stroke, transaction: TransactionID(opID(7, alice)), origin: Point(x: 600, y: 600),
                        nextIndex: 3, lastTime: 0.2)))
        #expect(try editor.send(.drawEnded).isEmpty)
        #expect(editor.state.gesture == nil)

        // The whole stroke is one step for undo.
        let undone = try editor.perform(.undo)
        #expect(undone == [Canvas.aliceOp(10, .delete(stroke))])
        #expect(!editor.canUndo)
    }

    @Test("a gesture with a non-finite or non-positive number throws and changes nothing")
    func invalidGestureInputThrows() throws {
        var editor = Canvas.editor()
        try editor.send(.tap(at: Point(x: 100, y: 100)))
        try editor.send(.pinchBegan(around: .zero))
        let before = editor.state
        #expect(throws: ModelError.self) { try editor.send(.pinchEnded(scale: .nan)) }
        #expect(throws: ModelError.self) { try editor.send(.pinchEnded(scale: 0)) }
        #expect(throws: ModelError.self) { try editor.send(.dragEnded(translation: Vector(dx: .infinity, dy: 0))) }
        #expect(throws: ModelError.self) { try editor.send(.tap(at: Point(x: .nan, y: 0))) }
        #expect(editor.state == before)
    }

    @Test("a draw point earlier than the one before it is refused, and the stroke and gesture stay as they were")
    func aDrawPointGoingBackInTimeIsRefused() throws {
        var editor = Canvas.editor()
        _ = try editor.send(.drawBegan(DrawPoint(location: Point(x: 600, y: 600), time: 0)))
        _ = try editor.send(.drawMoved([DrawPoint(location: Point(x: 610, y: 600), time: 0.2)]))
        let before = (editor.document.stateHash, editor.state)
        #expect(throws: ModelError.self) {
            try editor.send(.drawMoved([DrawPoint(location: Point(x: 620, y: 600), time: 0.1)]))
        }
        #expect(throws: ModelError.self, "within one batch too") {
            try editor.send(
                .drawMoved([
                    DrawPoint(location: Point(x: 620, y: 600), time: 0.3),
                    DrawPoint(location: Point(x: 630, y: 600), time: 0.25),
                ]))
        }
        #expect(editor.document.stateHash == before.0 && editor.state == before.1)
        let equal = try editor.send(.drawMoved([DrawPoint(location: Point(x: 620, y: 600), time: 0.2)]))
        #expect(equal.count == 1, "the same time again is not going back")
    }
}

