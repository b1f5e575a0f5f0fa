import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

/// Copy and paste: a selection lifted as the page's clipboard text and put
/// back as new entities, in the same document or another.
@Suite("Clippings: copy and paste between documents")
struct ClippingTests {
    static let bob = ReplicaID(rawValue: 0xB0B)

    /// A star, a text and a stroke of three samples, by Bob.
    static func source() throws -> Editor {
        var editor = Editor(replica: bob)
        try editor.perform(.place(.emoji("⭐️", size: 40), at: Point(x: 100, y: 100)))
        try editor.perform(.place(.text("hi", font: "DejaVu Serif", size: 20, style: .framed), at: Point(x: 200, y: 100)))
        try editor.send(.drawBegan(DrawPoint(location: Point(x: 100, y: 200), time: 0)))
        try editor.send(.drawMoved([DrawPoint(location: Point(x: 120, y: 210), time: 0.1)]))
        try editor.send(.drawMoved([DrawPoint(location: Point(x: 140, y: 230), time: 0.2)]))
        try editor.send(.drawEnded)
        try editor.perform(.selectAll)
        return editor
    }

    /// A star and a text placed with "n" and then typed on as characters,
    /// as the page does when a frame passes while someone types "note".
    static func typedSource(typing rest: String = "ote") throws -> (Editor, text: EntityID) {
        var editor = Editor(replica: bob)
        try editor.perform(.selectPlaced(true))
        try editor.perform(.place(.emoji("⭐️", size: 48), at: Point(x: 600, y: 306)))
        try editor.perform(.place(.text("n", font: "DejaVu Sans", size: 32), at: Point(x: 500, y: 200)))
        let text = try #require(editor.state.selection.first)
        try editor.perform(.replaceText(text, range: 1..<1, with: Array(rest.unicodeScalars)))
        try editor.perform(.selectAll)
        return (editor, text)
    }

    @Test("a text typed into after it was placed is copied as it reads, and its paste is centred on the paste point")
    func aTypedTextIsCopiedAsItReads() throws {
        let (source, text) = try Self.typedSource()
        #expect(source.document.textString(of: text) == "note")
        let clipping = try ClippingJSON.decode(ClippingJSON.encode(try #require(source.clipping())))
        #expect(clipping.items.contains { $0.fields.contains(.text("note")) })
        var target = Editor(replica: ReplicaID(rawValue: 0xA11CE))
        try target.perform(.paste(clipping, at: Point(x: 300, y: 300)))
        #expect(target.document.entities.map(\.content) == source.document.entities.map(\.content))
        let box = try #require(target.document.bounds(of: target.document.entities.map(\.id)))
        #expect(abs(box.center.x - 300) < 0.01 && abs(box.center.y - 300) < 0.01, "centred on the paste point")
    }

    @Test("a text typed into after it was placed is duplicated as it reads")
    func aTypedTextIsDuplicatedAsItReads() throws {
        var (editor, _) = try Self.typedSource()
        try editor.perform(.duplicateSelection)
        let texts = editor.document.entities.filter { $0.kind == .text }
        #expect(texts.count == 2)
        #expect(texts.allSatisfy { editor.document.textString(of: $0.id) == "note" }, "\(texts.map(\.content))")
    }

    @Test("a text longer than a create carries is copied, pasted and duplicated whole, typed in after its create")
    func aLongTextIsCopiedWhole() throws {
        let long = String(repeating: "abcdefghij", count: 2_000)  // 20,000 bytes, past a create's 16 KiB
        var (editor, text) = try Self.typedSource(typing: long)
        let whole = "n" + long
        #expect(editor.document.textString(of: text) == whole)
        let clipping = try ClippingJSON.decode(ClippingJSON.encode(try #require(editor.clipping())))
        var target = Editor(replica: ReplicaID(rawValue: 0xA11CE))
        let ops = try target.perform(.paste(clipping, at: Point(x: 300, y: 300)))
        #expect(ops.contains { if case .insertText = $0.action { true } else { false } }, "typed in after the create")
        let pasted = try #require(target.document.entities.first { $0.kind == .text })
        #expect(target.document.textString(of: pasted.id) == whole)
        try editor.perform(.duplicateSelection)
        let texts = editor.document.entities.filter { $0.kind == .text }
        #expect(texts.count == 2 && texts.allSatisfy { editor.document.textString(of: $0.id) == whole })
    }

    @Test("a copy pasted into another document makes new entities that look the same, around the paste point, selected, one undo")
    func aPasteMakesNewEntitiesThatLookTheSame() throws {
        let source = try Self.source()
        let text = ClippingJSON.encode(try #require(source.clipping()))
        #expect(text.hasPrefix("{\"easel\":\"clipping\",\"version\":1,"))
        var target = Editor(replica: ReplicaID(rawValue: 0xA11CE))
        let ops = try target.perform(.paste(try ClippingJSON.decode(text), at: Point(x: 500, y: 500)))
        #expect(Set(ops.map(\.transaction)).count == 1, "one transaction")
        let pasted = target.document.entities
        #expect(pasted.count == 3 && Set(pasted.map(\.id)) == target.state.selection)
        #expect(Set(pasted.map(\.id)).isDisjoint(with: Set(source.document.entities.map(\.id))), "new entities")
        // The same content and style, in the same order, moved as one.
        let originals = source.document.entities
        let shift = Vector(
            dx: pasted[0].transform.x - originals[0].transform.x, dy: pasted[0].transform.y - originals[0].transform.y)
        for (original, copy) in zip(originals, pasted) {
            #expect(copy.content == original.content && copy.style == original.style)
            #expect(abs(copy.transform.x - original.transform.x - shift.dx) < 0.001)
            #expect(abs(copy.transform.y - original.transform.y - shift.dy) < 0.001)
        }
        let box = try #require(target.document.bounds(of: pasted.map(\.id)))
        #expect(abs(box.center.x - 500) < 0.01 && abs(box.center.y - 500) < 0.01, "centred on the paste point")
        try target.perform(.undo)
        #expect(target.document.entities.isEmpty)
    }

    @Test("text that is not a clipping, or holds what no op may (a font name over 128 bytes), is refused whole")
    func badClippingsAreRefused() throws {
        let good = ClippingJSON.encode(try #require(try Self.source().clipping()))
        let bad = [
            "hello", "{}", "{\"easel\":\"other\",\"version\":1,\"entities\":[]}",
            good.replacingOccurrences(of: "\"version\":1", with: "\"version\":2"),
            "{\"easel\":\"clipping\",\"version\":1,\"entities\":[]}",
            "{\"easel\":\"clipping\",\"version\":1,\"entities\":[{\"kind\":\"text\",\"dx\":0,\"dy\":0,\"fields\":{\"font\":\"\(String(repeating: "f", count: 129))\"}}]}",
            "{\"easel\":\"clipping\",\"version\":1,\"entities\":[{\"kind\":\"emoji\",\"dx\":0,\"dy\":0,\"fields\":{},\"samples\":[[[0,0,0]]]}]}",
            "{\"easel\":\"clipping\",\"version\":1,\"entities\":[{\"kind\":\"spaceship\",\"dx\":0,\"dy\":0,\"fields\":{}}]}",
        ]
        for text in bad {
            #expect(throws: DecodeError.self, "\(text.prefix(60))") { try ClippingJSON.decode(text) }
        }
        var editor = Editor(replica: Self.bob)
        #expect(throws: ModelError.self) {
            try editor.perform(.paste(try ClippingJSON.decode(good), at: Point(x: .nan, y: 0)))
        }
        #expect(editor.document.entities.isEmpty, "nothing changed")
    }

    @Test("a copy leaves positions, z-order and erasures behind, and an empty selection copies nothing")
    func aCopyLeavesPlaceBehind() throws {
        var source = try Self.source()
        let clipping = try #require(source.clipping())
        for item in clipping.items {
            #expect(!item.fields.contains { [.x, .y, .zKey, .erases].contains($0.id) })
        }
        #expect(clipping.items.map(\.samples.count) == [0, 0, 3])
        try source.perform(.clearSelection)
        #expect(source.clipping() == nil)
    }
}
