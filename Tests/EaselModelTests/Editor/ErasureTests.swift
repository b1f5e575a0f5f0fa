import EaselTestSupport
import Testing

@testable import EaselModel

/// Erasures belong to what they erased: a pixel or blur eraser records the
/// entities beneath it that its ink reaches, each with where it stood.
@Suite("Editor: erasures belong to what they erased")
struct ErasureTests {

    /// Places a square at a point; returns its ID.
    static func square(_ editor: inout Editor, at point: Point) throws -> EntityID {
        try editor.perform(.place(.shape(.rectangle, width: 80, height: 80), at: point))
        editor.state.selection = []
        return try #require(editor.document.zOrder.last)
    }

    /// Draws a horizontal pixel (or blur) eraser stroke across `y` from `from` to `to`.
    @discardableResult
    static func erase(
        _ editor: inout Editor, _ tool: StrokeTool = .eraser, y: Float = 100, from: Float, to: Float
    ) throws -> (eraser: EntityID, ops: [Op]) {
        try editor.perform(.setDrawing(DrawingSettings(tool: tool, weight: 24)))
        var ops = try editor.send(.drawBegan(DrawPoint(location: Point(x: from, y: y), time: 0)))
        let steps = 24
        ops += try editor.send(
            .drawMoved(
                (1...steps).map {
                    DrawPoint(location: Point(x: from + (to - from) * Float($0) / Float(steps), y: y), time: Float($0) / 60)
                }))
        ops += try editor.send(.drawEnded)
        let eraser = try #require(editor.document.zOrder.last)
        return (eraser, ops)
    }

    static func erased(by eraser: EntityID, in document: Document) -> [ErasedEntity]? {
        guard case .stroke(let stroke)? = document[eraser]?.content else { return nil }
        return stroke.erases
    }

    @Test("a pixel eraser records each entity beneath it that its ink reaches, with where that entity stood")
    func pixelEraserRecordsWhatItReaches() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 0xE1))
        let reached = try Self.square(&editor, at: Point(x: 100, y: 100))
        let farAway = try Self.square(&editor, at: Point(x: 100, y: 400))
        let (eraser, ops) = try Self.erase(&editor, from: 40, to: 160)
        let erased = try #require(Self.erased(by: eraser, in: editor.document))
        #expect(erased == [ErasedEntity(entity: reached, transform: Transform(x: 100, y: 100))])
        #expect(!erased.contains { $0.entity == farAway })
        #expect(Set(ops.map(\.transaction)).count == 1, "the stroke and its erasures are one transaction")
    }

    @Test("an eraser's list grows while it is drawn, so peers see each hole as it is made")
    func erasuresStreamAsTheEraserMoves() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 0xE2))
        let first = try Self.square(&editor, at: Point(x: 100, y: 100))
        let second = try Self.square(&editor, at: Point(x: 300, y: 100))
        try editor.perform(.setDrawing(DrawingSettings(tool: .eraser, weight: 24)))
        let began = try editor.send(.drawBegan(DrawPoint(location: Point(x: 40, y: 100), time: 0)))
        #expect(began.contains { if case .create(.stroke, let fields) = $0.action { fields.contains(.erases([])) } else { false } })
        let eraser = try #require(editor.document.zOrder.last)
        try editor.send(.drawMoved([DrawPoint(location: Point(x: 120, y: 100), time: 0.1)]))
        #expect(Self.erased(by: eraser, in: editor.document)?.map(\.entity) == [first])
        let moved = try editor.send(.drawMoved([DrawPoint(location: Point(x: 320, y: 100), time: 0.2)]))
        #expect(Self.erased(by: eraser, in: editor.document)?.map(\.entity) == [first, second])
        #expect(moved.contains { if case .set(eraser, .erases) = $0.action { true } else { false } })
        let again = try editor.send(.drawMoved([DrawPoint(location: Point(x: 330, y: 100), time: 0.3)]))
        #expect(!again.contains { if case .set(_, .erases) = $0.action { true } else { false } }, "nothing new: no set")
    }

    @Test("an entity moved under an old erasure, or placed there later, is not erased")
    func laterEntitiesAreUntouched() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 0xE3))
        let (eraser, _) = try Self.erase(&editor, from: 40, to: 160)
        let older = try Self.square(&editor, at: Point(x: 100, y: 400))
        _ = try Self.square(&editor, at: Point(x: 100, y: 100))
        editor.state.selection = [older]
        try editor.send(.dragBegan(at: Point(x: 100, y: 400)))
        try editor.send(.dragEnded(translation: Vector(dx: 0, dy: -300)))
        #expect(editor.document[older]?.transform.y == 100)
        #expect(Self.erased(by: eraser, in: editor.document) == [], "it erased nothing, and never will")
    }

    @Test("an eraser never erases another eraser, nor an entity above it in the z-order")
    func erasersEraseOnlyWhatLiesBeneath() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 0xE4))
        let beneath = try Self.square(&editor, at: Point(x: 100, y: 100))
        let (first, _) = try Self.erase(&editor, from: 40, to: 160)
        let (second, _) = try Self.erase(&editor, .blur, from: 40, to: 160)
        #expect(Self.erased(by: first, in: editor.document)?.map(\.entity) == [beneath])
        #expect(Self.erased(by: second, in: editor.document)?.map(\.entity) == [beneath], "not the pixel eraser")
    }

    @Test("one undo takes the whole erasure back, every hole of it; redo brings it back")
    func oneUndoRemovesTheWholeErasure() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 0xE5))
        _ = try Self.square(&editor, at: Point(x: 100, y: 100))
        _ = try Self.square(&editor, at: Point(x: 200, y: 100))
        let (eraser, _) = try Self.erase(&editor, from: 40, to: 260)
        #expect(Self.erased(by: eraser, in: editor.document)?.count == 2)
        try editor.perform(.undo)
        #expect(editor.document.erasures.isEmpty)
        #expect(editor.document.zOrder.count == 2)
        try editor.perform(.redo)
        #expect(editor.document.erasures.map(\.eraser) == [eraser])
        #expect(Self.erased(by: eraser, in: editor.document)?.count == 2)
    }

    @Test("an erase concurrent with a move of the same entity keeps the hole on the entity, on every replica")
    func eraseConcurrentWithMoveConverges() throws {
        var alice = Editor(replica: ReplicaID(rawValue: 0xA11CE))
        let square = try Self.square(&alice, at: Point(x: 100, y: 100))
        var bob = Editor(replica: ReplicaID(rawValue: 0xB0B), document: alice.document)
        let (eraser, erasing) = try Self.erase(&alice, from: 40, to: 160)
        bob.state.selection = [square]
        try bob.send(.dragBegan(at: Point(x: 100, y: 100)))
        let moving = try bob.send(.dragEnded(translation: Vector(dx: 250, dy: 80)))
        alice.receive(moving)
        bob.receive(erasing)
        #expect(alice.document.stateHash == bob.document.stateHash)
        for document in [alice.document, bob.document] {
            #expect(Self.erased(by: eraser, in: document) == [ErasedEntity(entity: square, transform: Transform(x: 100, y: 100))])
            #expect(document[square]?.transform == Transform(x: 350, y: 180))
        }
    }

    @Test("erase and move ops settle to one state in every order of delivery", arguments: 0..<40)
    func erasuresConvergeInAnyOrder(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var alice = Editor(replica: ReplicaID(rawValue: 0xA1))
        var ops: [Op] = []
        for index in 0..<4 {
            ops += try alice.perform(
                .place(.shape(.rectangle, width: 60, height: 60), at: Point(x: Float(60 + 90 * index), y: 100)))
        }
        alice.state.selection = []
        var bob = Editor(replica: ReplicaID(rawValue: 0xB2), document: alice.document)
        let ids = alice.document.zOrder
        for _ in 0..<3 {
            let y = Float(random.next() % 60) + 70
            ops += try Self.erase(&alice, y: y, from: Float(random.next() % 200), to: Float(random.next() % 200) + 200).ops
            bob.state.selection = [ids[Int(random.next() % UInt64(ids.count))]]
            let moved = try #require(bob.state.selection.first)
            let at = try #require(bob.document[moved]).transform
            try bob.send(.dragBegan(at: Point(x: at.x, y: at.y)))
            ops += try bob.send(.dragEnded(translation: Vector(dx: Float(random.next() % 100), dy: Float(random.next() % 50))))
            if random.next() % 2 == 0 { ops += try alice.perform(.undo) }
        }
        let expected = Document(applying: ops).stateHash
        for _ in 0..<5 {
            var shuffled = ops
            for index in shuffled.indices.reversed() {
                shuffled.swapAt(index, Int(random.next() % UInt64(index + 1)))
            }
            #expect(Document(applying: shuffled + shuffled.prefix(3)).stateHash == expected, "seed \(seed)")
        }
    }
}
