import EaselTestSupport
import Testing

@testable import EaselModel

/// Z-order that means what it says: bring forward and send backward move
/// past the next entity that overlaps, to front and to back go all the way.
@Suite("Editor: z-order commands")
struct ZOrderCommandTests {
    /// A at (100, 100); B at (400, 100), clear of A; C at (150, 100),
    /// overlapping A; D far away. Bottom to top: A, B, C, D.
    static func board() throws -> (Editor, a: EntityID, b: EntityID, c: EntityID, d: EntityID) {
        var editor = Editor(replica: ReplicaID(rawValue: 0x20))
        var ids: [EntityID] = []
        for (x, y) in [(100, 100), (400, 100), (150, 100), (1000, 1000)] as [(Float, Float)] {
            try editor.perform(.place(.shape(.rectangle, width: 100, height: 100), at: Point(x: x, y: y)))
            ids.append(try #require(editor.document.zOrder.last))
        }
        editor.state.selection = []
        return (editor, ids[0], ids[1], ids[2], ids[3])
    }

    @Test("bring forward passes the next entity above that overlaps, not one that does not")
    func bringForwardPassesTheNextOverlappingEntity() throws {
        var (editor, a, b, c, d) = try Self.board()
        editor.state.selection = [a]
        #expect(editor.canBringForward && !editor.canSendBackward)
        let ops = try editor.perform(.bringForward)
        #expect(editor.document.zOrder == [b, c, a, d], "past C, which overlaps; B does not")
        #expect(Set(ops.map(\.transaction)).count == 1)
        #expect(!editor.canBringForward, "nothing above overlaps A any more")
        #expect(try editor.perform(.bringForward).isEmpty)
        #expect(editor.canBringToFront, "D still lies above")
    }

    @Test("send backward passes the next entity below that overlaps")
    func sendBackwardPassesTheNextOverlappingEntity() throws {
        var (editor, a, b, c, d) = try Self.board()
        editor.state.selection = [c]
        #expect(editor.canSendBackward && !editor.canBringForward)
        try editor.perform(.sendBackward)
        #expect(editor.document.zOrder == [c, a, b, d])
        #expect(!editor.canSendBackward && !editor.canSendToBack)
    }

    @Test("bring to front and send to back move the selection past everything, keeping its own order")
    func frontAndBackKeepTheSelectionsOrder() throws {
        var (editor, a, b, c, d) = try Self.board()
        editor.state.selection = [a, c]
        try editor.perform(.bringToFront)
        #expect(editor.document.zOrder == [b, d, a, c])
        #expect(!editor.canBringToFront)
        try editor.perform(.sendToBack)
        #expect(editor.document.zOrder == [a, c, b, d])
        #expect(!editor.canSendToBack && editor.canBringToFront)
        #expect(try editor.perform(.sendToBack).isEmpty, "already at the back: nothing written")
        try editor.perform(.undo)
        #expect(editor.document.zOrder == [b, d, a, c], "one undo a step")
    }

    @Test("z-order commands are useless with no selection")
    func zOrderCommandsNeedASelection() throws {
        let (editor, _, _, _, _) = try Self.board()
        #expect(!editor.canBringForward && !editor.canSendBackward && !editor.canBringToFront && !editor.canSendToBack)
    }

    @Test("forward and backward are offered exactly when they would move something, and keep the selection's order", arguments: 0..<60)
    func orderCommandsAreOfferedExactlyWhenTheyWouldMoveSomething(seed: UInt64) throws {
        var random = SeededRandom(seed: seed &+ 0xB0B)
        var editor = Editor(replica: ReplicaID(rawValue: seed + 1))
        for _ in 0..<40 {
            guard let input = RandomEditing.next(for: editor, using: &random) else { continue }
            _ = try? editor.apply(input)
        }
        let order = editor.document.zOrder.filter { id in
            if case .stroke(let stroke)? = editor.document[id]?.content { !stroke.tool.erasesPixels } else { true }
        }
        editor.state.selection = Set(order.filter { _ in random.chance(0.3) })
        let selected = editor.state.selection
        let bounds = Dictionary(uniqueKeysWithValues: order.compactMap { id in
            editor.document[id].map { (id, EntityGeometry($0).documentBounds) }
        })
        func overlaps(_ x: EntityID, _ y: EntityID) -> Bool {
            guard let first = bounds[x], let second = bounds[y] else { return false }
            return first.intersects(second)
        }
        for upwards in [true, false] {
            // Some selected entity meets an unselected one that way before
            // the next selected entity.
            let expected = order.indices.contains { index in
                guard selected.contains(order[index]) else { return false }
                let beyond = upwards ? Array(order[(index + 1)...]) : order[..<index].reversed()
                return beyond.prefix { !selected.contains($0) }.contains { overlaps(order[index], $0) }
            }
            #expect((upwards ? editor.canBringForward : editor.canSendBackward) == expected, "seed \(seed)")
            var moved = editor
            let ops = try moved.perform(upwards ? .bringForward : .sendBackward)
            #expect(ops.isEmpty == !expected, "seed \(seed)")
            let after = moved.document.zOrder
            let before = editor.document.zOrder
            #expect(after.filter(selected.contains) == before.filter(selected.contains), "the selection keeps its order")
        }
    }
}
