import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Editor: hit testing and bounds")
struct HitTestTests {
    /// One entity of `kind` at (0, 0), rotated a quarter turn and scaled 2,
    /// whose local box is 40 wide and 10 tall (a stroke: a 40-long line).
    func rotatedEntity(_ kind: EntityKind) -> Document {
        let transform: [Field] = [.x(0), .y(0), .scale(2), .rotation(Float.pi / 2), .zKey(key("a0"))]
        let content: [Field] =
            switch kind {
            case .emoji: [.character("⭐️"), .size(10)]
            case .shape: [.shape(.ellipse), .width(40), .height(10)]
            case .text: [.text("abcd"), .size(10 / EntityGeometry.lineHeight)]
            case .stroke: [.tool(.pen), .weight(2)]
            case .image: [.blob(BlobHash(words: (0, 0, 0, 1))), .width(40), .height(10)]
            }
        var document = Document(applying: [op(1, bob, .create(kind, content + transform))])
        if kind == .stroke {
            document.apply(
                op(2, bob, .append(EntityID(opID(1, bob)), start: 0, samples: [sample(-20, 0, 0), sample(20, 0, 0.1)])))
        }
        return document
    }

    @Test("hit testing honours rotation and scale for every kind", arguments: [EntityKind.shape, .stroke, .image])
    func hitTestingHonoursRotationAndScale(_ kind: EntityKind) {
        let document = rotatedEntity(kind)
        let id = EntityID(opID(1, bob))
        // Unrotated, the box would reach x = ±40 (40 wide × scale 2) at y = 0;
        // rotated a quarter turn it reaches y = ±40 at x = 0 instead.
        #expect(document.hitTest(Point(x: 0, y: 38)) == [id])
        #expect(document.hitTest(Point(x: 0, y: -38)) == [id])
        #expect(document.hitTest(Point(x: 38, y: 0)).isEmpty)
        #expect(document.hitTest(Point(x: 0, y: 60)).isEmpty)
    }

    @Test("hit testing honours rotation and scale for emoji and text", arguments: [EntityKind.emoji, .text])
    func hitTestingScalesSquareKinds(_ kind: EntityKind) throws {
        let document = rotatedEntity(kind)
        let id = EntityID(opID(1, bob))
        let box = try #require(document[id].map { EntityGeometry($0).localBox })
        // A quarter turn puts the local width along y: half of it, doubled
        // by the scale, is the reach; the local height is the reach along x.
        #expect(document.hitTest(Point(x: 0, y: box.width - 0.5)) == [id])
        #expect(document.hitTest(Point(x: 0, y: box.width + 0.5)).isEmpty)
        #expect(document.hitTest(Point(x: box.height - 0.5, y: 0)) == [id])
        #expect(document.hitTest(Point(x: box.height + 0.5, y: 0)).isEmpty)
    }

    @Test("a stroke is hit along its line, not across its whole box")
    func strokeHitsAlongItsLine() {
        let stroke = EntityID(opID(1, bob))
        let document = Document(applying: [
            op(1, bob, .create(.stroke, [.weight(2), .zKey(key("a0"))])),
            op(2, bob, .append(stroke, start: 0, samples: [sample(0, 0, 0), sample(100, 100, 0.1)])),
        ])
        #expect(document.hitTest(Point(x: 50, y: 52)) == [stroke])
        #expect(document.hitTest(Point(x: 90, y: 10)).isEmpty)
    }

    @Test("hit testing lists the topmost entity first")
    func hitTestingIsTopmostFirst() {
        let document = Document(applying: [
            op(1, bob, .create(.shape, [.width(100), .height(100), .zKey(key("a1"))])),
            op(2, bob, .create(.shape, [.width(100), .height(100), .zKey(key("a0"))])),
            op(3, bob, .create(.shape, [.width(100), .height(100), .zKey(key("a2"))])),
        ])
        #expect(document.hitTest(.zero) == [EntityID(opID(3, bob)), EntityID(opID(1, bob)), EntityID(opID(2, bob))])
    }

    @Test("bounds of a set of entities enclose their transformed boxes")
    func boundsEncloseTransformedEntities() throws {
        let document = Canvas.editor().document
        let bounds = try #require(document.bounds(of: [Canvas.star, Canvas.square]))
        #expect(bounds == Rect(minX: 80, minY: 60, maxX: 340, maxY: 140))
        #expect(document.bounds(of: [EntityID(opID(99, carol))]) == nil)
        let rotated = try #require(rotatedEntity(.shape).bounds(of: [EntityID(opID(1, bob))]))
        #expect(abs(rotated.width - 20) < 0.01 && abs(rotated.height - 80) < 0.01)
    }
}

@Suite("Editor: remote ops")
struct RemoteOpTests {
    @Test("remote deletes leave the selection")
    func remoteDeletesLeaveTheSelection() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.tap(at: Point(x: 100, y: 100))) { $0.selection = [Canvas.star] }
        try store.send(.tap(at: Point(x: 300, y: 100))) { $0.selection = [Canvas.star, Canvas.square] }
        store.receive([op(7, bob, .delete(Canvas.star))]) { $0.selection = [Canvas.square] }
        store.receive([op(8, bob, .restore(Canvas.star))])
    }

    @Test("remote ops advance the replica's clock")
    func remoteOpsAdvanceTheClock() throws {
        var editor = Canvas.editor()
        editor.receive([op(41, bob, .set(Canvas.star, .x(3)))])
        #expect(try editor.perform(.deleteSelection).isEmpty)
        try editor.send(.tap(at: Point(x: 3, y: 100)))
        #expect(try editor.perform(.deleteSelection) == [Canvas.aliceOp(42, .delete(Canvas.star))])
    }

    @Test("the topmost hit is hit testing's first answer, for every kind, rotation and scale")
    func theTopmostHitIsHitTestingsFirstAnswer() throws {
        var checked = 0
        var hits = 0
        for seed in UInt64(0)..<150 {
            var random = SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 7)
            var editor = Editor(replica: ReplicaID(rawValue: seed + 1))
            for _ in 0..<60 {
                guard let input = RandomEditing.next(for: editor, using: &random) else { continue }
                _ = try? editor.apply(input)
            }
            if let input = RandomEditing.finishing(editor, using: &random) { _ = try? editor.apply(input) }
            let document = editor.document
            var points: [Point] = []
            for entity in document.entities {
                let bounds = EntityGeometry(entity).documentBounds
                for _ in 0..<12 {
                    points.append(
                        Point(
                            x: bounds.minX - 5 + Float.random(in: 0...1, using: &random) * (bounds.width + 10),
                            y: bounds.minY - 5 + Float.random(in: 0...1, using: &random) * (bounds.height + 10)))
                }
            }
            for point in points {
                let expected = document.hitTest(point).first
                #expect(document.topmostHit(point) == expected, "seed \(seed) at \(point)")
                checked += 1
                if expected != nil { hits += 1 }
            }
        }
        #expect(hits > 1_000 && checked - hits > 1_000, "both hits and misses: \(hits) of \(checked)")
    }
}

