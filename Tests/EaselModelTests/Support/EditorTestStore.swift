import EaselTestSupport
import Testing

@testable import EaselModel

/// Drives an editor the way swift-composable-architecture's TestStore does:
/// every step states how the WHOLE editor state changes and exactly which
/// ops it commits, and fails on anything else.
struct EditorTestStore {
    private(set) var editor: Editor
    private(set) var expected: EditorState

    init(_ editor: Editor) {
        self.editor = editor
        expected = editor.state
    }

    mutating func send(
        _ event: GestureEvent, ops expectedOps: [Op] = [], sourceLocation: SourceLocation = #_sourceLocation,
        _ update: (inout EditorState) -> Void = { _ in }
    ) throws {
        let ops = try editor.send(event)
        check(ops, expectedOps, update, sourceLocation)
    }

    mutating func perform(
        _ command: Command, ops expectedOps: [Op] = [], sourceLocation: SourceLocation = #_sourceLocation,
        _ update: (inout EditorState) -> Void = { _ in }
    ) throws {
        let ops = try editor.perform(command)
        check(ops, expectedOps, update, sourceLocation)
    }

    mutating func receive(
        _ ops: [Op], sourceLocation: SourceLocation = #_sourceLocation, _ update: (inout EditorState) -> Void = { _ in }
    ) {
        editor.receive(ops)
        check([], [], update, sourceLocation)
    }

    private mutating func check(
        _ ops: [Op], _ expectedOps: [Op], _ update: (inout EditorState) -> Void, _ location: SourceLocation
    ) {
        update(&expected)
        #expect(editor.state == expected, sourceLocation: location)
        #expect(ops == expectedOps, sourceLocation: location)
        expected = editor.state
    }
}

/// A canvas made by Bob, on which Alice's editor works. Every entity kind
/// is present; none overlaps another.
enum Canvas {
    static let star = EntityID(opID(1, bob))
    static let square = EntityID(opID(2, bob))
    static let note = EntityID(opID(3, bob))
    static let scribble = EntityID(opID(4, bob))
    static let photo = EntityID(opID(6, bob))
    static let all = [star, square, note, scribble, photo]

    /// Centres, in document units.
    static let centres: [EntityID: Point] = [
        star: Point(x: 100, y: 100), square: Point(x: 300, y: 100), note: Point(x: 100, y: 300),
        scribble: Point(x: 300, y: 300), photo: Point(x: 500, y: 100),
    ]

    static var ops: [Op] {
        [
            op(1, bob, .create(.emoji, [.character("⭐️"), .size(40), .x(100), .y(100), .zKey(key("a0"))])),
            op(
                2, bob,
                .create(.shape, [.shape(.rectangle), .width(80), .height(80), .x(300), .y(100), .zKey(key("a1"))])),
            op(3, bob, .create(.text, [.text("hi"), .font("Menlo"), .size(20), .x(100), .y(300), .zKey(key("a2"))])),
            op(4, bob, .create(.stroke, [.tool(.pen), .weight(4), .x(280), .y(280), .zKey(key("a3"))])),
            op(
                5, bob,
                .append(scribble, start: 0, samples: [sample(0, 0, 0), sample(20, 20, 0.1), sample(40, 40, 0.2)])),
            op(
                6, bob,
                .create(
                    .image,
                    [.blob(BlobHash(words: (1, 2, 3, 4))), .width(60), .height(40), .x(500), .y(100), .zKey(key("a4"))])
            ),
        ]
    }

    static func editor(_ replica: ReplicaID = alice) -> Editor {
        var editor = Editor(replica: replica)
        editor.receive(ops)
        return editor
    }

    /// An op by Alice at `counter` in the transaction that began at `first`.
    static func aliceOp(_ counter: UInt64, in first: UInt64? = nil, _ action: Op.Action) -> Op {
        Op(id: opID(counter, alice), transaction: TransactionID(opID(first ?? counter, alice)), action: action)
    }
}
