import EaselModel
import EaselProtocol
import EaselTestSupport

/// The golden vectors' messages: every message type and every op kind.
/// `Protocol/vectors/valid/NAME.hex` and `.json` hold their encodings.
enum ValidVectors {
    static let aliceUser = UserInfo(name: "Alice", initials: "A", color: Color(rawValue: 0xE845_6BFF))
    static let bobUser = UserInfo(name: "Bob Ö", initials: "BÖ", color: Color(rawValue: 0x2E86_DEFF))
    static let epoch = Epoch(rawValue: 0x5EED_0000_0000_0001)
    static let star = EntityID(opID(1, alice))
    static let stroke = EntityID(opID(4, alice))
    static let blob = BlobHash(
        words: (0x0102_0304_0506_0708, 0x1112_1314_1516_1718, 0x2122_2324_2526_2728, 0x3132_3334_3536_3738))

    static var all: [(name: String, message: Message)] {
        messages + ops.map { ($0.name, Message.push(Push(batch: 1, ops: $0.ops))) }
    }

    private static var messages: [(name: String, message: Message)] {
        [
            ("hello-minimal", .hello(Hello(document: document("sketch"), replica: alice, user: aliceUser))),
            (
                "hello-resume",
                .hello(
                    Hello(
                        document: document("team/board-1.v2"), replica: bob, token: "v1.eyJ1IjoiYm9iIn0.c2ln",
                        since: ResumePoint(position: 120, epoch: epoch), user: bobUser))
            ),
            (
                "welcome-tail",
                .welcome(
                    Welcome(
                        epoch: epoch, position: 7,
                        content: .tail([
                            PositionedOp(position: 6, op: op(5, bob, .set(star, .x(11)))),
                            PositionedOp(position: 7, op: op(6, carol, .delete(star))),
                        ]),
                        peers: [Presence(replica: bob, user: bobUser, cursor: Point(x: 10, y: 20))]))
            ),
            (
                "welcome-snapshot-chunk",
                .welcome(
                    Welcome(
                        epoch: epoch, position: 40,
                        content: .snapshot([
                            op(1, alice, .create(.emoji, [.character("⭐️"), .x(10), .y(-20.5), .zKey(key("a0"))])),
                            op(2, alice, .set(star, .scale(2))),
                        ]), more: true))
            ),
            (
                "welcome-text-snapshot",
                .welcome(
                    Welcome(
                        epoch: epoch, position: 80,
                        content: .snapshot([
                            op(3, alice, .create(.text, [])), op(70, bob, .textSnapshot(note, textSnapshot)),
                        ])))
            ),
            ("push-one-set", .push(Push(batch: 7, ops: [op(2, alice, .set(star, .x(12.5)))]))),
            ("ack", .ack(Ack(batch: 7, first: 121, count: 3))),
            ("ack-all-duplicates", .ack(Ack(batch: 8, first: 124, count: 0))),
            (
                "ops-from-two-replicas",
                .ops([
                    PositionedOp(position: 3, op: op(9, bob, .set(star, .rotation(0.5)))),
                    PositionedOp(position: 5, op: op(10, bob, .set(star, .y(3)))),
                    PositionedOp(position: 300, op: op(4, carol, .restore(star))),
                ])
            ),
            ("presence-minimal", .presence(Presence(replica: alice, user: aliceUser))),
            (
                "presence-moving",
                .presence(
                    Presence(
                        replica: alice, user: aliceUser, cursor: Point(x: 100.5, y: -3),
                        viewport: VisibleArea(x: 0, y: 0, width: 1280, height: 720), selection: [star, stroke],
                        gesture: .moving([star, stroke], by: Vector(dx: 12, dy: -4.25))))
            ),
            (
                "presence-scaling",
                .presence(
                    Presence(replica: alice, user: aliceUser, selection: [star], gesture: .scaling([star], by: 1.5)))
            ),
            (
                "presence-rotating",
                .presence(
                    Presence(replica: alice, user: aliceUser, selection: [star], gesture: .rotating([star], by: -0.75)))
            ),
            (
                "presence-drawing",
                .presence(
                    Presence(
                        replica: alice, user: aliceUser, cursor: Point(x: 5, y: 6),
                        gesture: .drawing(
                            tool: .marker, color: Color(rawValue: 0xFFCC_00FF), weight: 8,
                            points: [Point(x: 1, y: 2), Point(x: 3, y: 4), Point(x: 5, y: 6)])))
            ),
            ("presence-idle", .presence(Presence(replica: bob, user: bobUser, idle: true))),
            (
                "presence-state",
                .presence(
                    Presence(
                        replica: bob, user: bobUser, selection: [star],
                        state: PresenceState(position: 300, hash: StateHash(rawValue: 0x0123_4567_89AB_CDEF))))
            ),
            (
                "presence-caret",
                .presence(
                    Presence(
                        replica: bob, user: bobUser, selection: [star],
                        caret: TextCaret(
                            text: star, anchor: .start, head: TextAnchor(after: opID(12, alice)))))
            ),
            ("leave", .leave(bob)),
            (
                "error-refused-push",
                .error(
                    ErrorMessage(
                        code: .unknownEntity, batch: 7, message: "the document has no entity e9@00000000000b0b0b"))
            ),
            (
                "error-fatal",
                .error(ErrorMessage(code: .unsupportedProtocol, fatal: true, message: "this server speaks protocol 1"))
            ),
            // A node of several sends a client to the node holding the document.
            ("error-moved", .error(ErrorMessage(code: .moved, fatal: true, message: "moved to node2"))),
            ("ping", .ping(nonce: 42)),
            ("pong", .pong(nonce: 42)),
        ]
    }

    /// Pushes, one for each op kind and each encoding feature of a batch.
    private static var ops: [(name: String, ops: [Op])] {
        let emoji: Op = op(
            1, alice, .create(.emoji, [.character("👩‍👩‍👧"), .size(40), .x(10), .y(-20.5), .zKey(key("a0"))]))
        let shapeFields: [Field] = [
            .shape(.bubble), .width(120), .height(80), .fill(.white), .color(.black), .weight(2), .rotation(0.125),
            .zKey(key("a1V")),
        ]
        let textFields: [Field] = [
            .text("Hello, \"canvas\"\n\ttab \\ ünï©ødé 🎨\u{1}"), .font("Menlo"), .size(18), .textStyle(.outlined),
            .alignment(.center), .zKey(key("Zz")),
        ]
        let strokeFields: [Field] = [
            .tool(.neon), .endCap(.arrow), .weight(6), .color(Color(red: 255, green: 0, blue: 128)),
        ]
        let imageFields: [Field] = [.blob(blob), .width(640), .height(480), .scale(0.5), .zKey(key("b0z"))]
        let everyField: [Op] = Field.everyKind.enumerated().map { index, field in
            op(UInt64(10 + index), alice, .set(star, field))
        }
        let noForce: [StrokeSample] = [sample(0, 0, 0), sample(3, 4, 0.016)]
        let everyForce: [StrokeSample] = [sample(5, 5, 0.03, force: 0.5), sample(6, 7, 0.05, force: 1)]
        let someForces: [StrokeSample] = (0..<10).map { (index: Int) -> StrokeSample in
            let position = Float(index)
            let force: Float? = index % 3 == 0 ? 0.25 : nil
            return sample(position, position * 2, position / 60, force: force)
        }
        return [
            ("push-create-emoji", [emoji]),
            ("push-create-shape", [op(2, alice, .create(.shape, shapeFields))]),
            ("push-create-text", [op(3, alice, .create(.text, textFields))]),
            ("push-create-stroke", [op(4, alice, .create(.stroke, strokeFields))]),
            ("push-create-image", [op(5, alice, .create(.image, imageFields))]),
            ("push-set-every-field", everyField),
            ("push-set-background", background()),
            ("push-erase", erase()),
            ("push-delete-restore", [op(30, alice, .delete(star)), op(31, alice, .restore(star))]),
            ("push-append-no-force", [op(32, alice, .append(stroke, start: 0, samples: noForce))]),
            ("push-append-every-force", [op(33, alice, .append(stroke, start: 2, samples: everyForce))]),
            ("push-append-some-forces", [op(34, alice, .append(stroke, start: 4, samples: someForces))]),
            ("push-transaction", transaction()),
            ("push-insert-text", insertText()),
            (
                "push-delete-text",
                [
                    op(
                        46, alice,
                        .deleteText(
                            note,
                            [
                                CharacterRun(first: opID(40, alice), count: 2),
                                CharacterRun(first: opID(7, bob), count: 1),
                            ]))
                ]
            ),
        ]
    }

    /// The text of `push-create-text`.
    static let note = EntityID(opID(3, alice))

    /// Typing into a text: at its start (no origins), typing on (the left
    /// origin is the character just before, which the binary form does not
    /// repeat), and between two characters of two replicas, past the BMP.
    private static func insertText() -> [Op] {
        [
            op(
                40, alice,
                .insertText(note, TextInsertion(originLeft: nil, originRight: nil, scalars: Array("Hi".unicodeScalars)))
            ),
            op(
                42, alice,
                .insertText(note, TextInsertion(originLeft: opID(41, alice), originRight: nil, scalars: ["!"]))),
            op(
                43, alice,
                .insertText(
                    note,
                    TextInsertion(
                        originLeft: opID(40, alice), originRight: opID(7, bob), scalars: Array("é🎨".unicodeScalars)))),
        ]
    }

    /// "Hello, you wor" with "ld" deleted, then bob's "!": each way a run's
    /// first ID and origins may be given (Protocol/README.md, 4.3) — its
    /// first ID written or going on from the run before, on another replica
    /// or the same; its left origin typing on, the previous run's last, or
    /// written; its right origin the next run's first, the previous run's,
    /// or written, naming another replica.
    static let textSnapshot = TextSnapshot(
        runs: [
            .init(first: opID(40, alice), count: 5, originLeft: nil, originRight: nil, isDeleted: false),
            .init(
                first: opID(60, bob), count: 1, originLeft: opID(44, alice), originRight: opID(45, alice),
                isDeleted: false),
            .init(first: opID(45, alice), count: 1, originLeft: opID(44, alice), originRight: nil, isDeleted: false),
            .init(
                first: opID(61, alice), count: 3, originLeft: opID(45, alice), originRight: opID(46, alice),
                isDeleted: false),
            .init(
                first: opID(46, alice), count: 3, originLeft: opID(45, alice), originRight: opID(60, bob),
                isDeleted: false),
            .init(
                first: opID(49, alice), count: 2, originLeft: opID(48, alice), originRight: opID(60, bob),
                isDeleted: true),
            .init(first: opID(70, bob), count: 1, originLeft: opID(63, alice), originRight: nil, isDeleted: false),
        ],
        scalars: Array("Hello, youwor!".unicodeScalars))

    /// The document's own fields, in one transaction: a background colour,
    /// and an image in a box, covering it.
    private static func background() -> [Op] {
        let first = TransactionID(opID(50, alice))
        let fields: [Field] = [
            .fill(Color(red: 250, green: 244, blue: 230)), .blob(blob), .width(800), .height(600), .fit(.cover),
        ]
        return fields.enumerated().map { index, field in
            Op(id: opID(50 + UInt64(index), alice), transaction: first, action: .set(.document, field))
        }
    }

    /// A pixel eraser's stroke as the editor streams it: created with an
    /// empty `erases`, then the whole list each time it grows (here to two
    /// entities, of two replicas, with where each stood).
    private static func erase() -> [Op] {
        let first = TransactionID(opID(60, alice))
        let eraser = EntityID(opID(60, alice))
        let bobsStar = EntityID(opID(9, ReplicaID(rawValue: 0xB0B)))
        let erased = [
            ErasedEntity(entity: star, transform: Transform(x: 10, y: -20.5, scale: 1.5, rotation: 0.25)),
            ErasedEntity(entity: bobsStar, transform: Transform(x: 300, y: 40)),
        ]
        return [
            Op(
                id: opID(60, alice), transaction: first,
                action: .create(.stroke, [.tool(.eraser), .weight(24), .erases([])])),
            Op(id: opID(61, alice), transaction: first, action: .set(eraser, .erases(Array(erased.prefix(1))))),
            Op(id: opID(62, alice), transaction: first, action: .set(eraser, .erases(erased))),
        ]
    }

    /// One gesture's ops: a shared transaction, a counter jump, a transaction
    /// begun in an earlier push, and a second replica's entity.
    private static func transaction() -> [Op] {
        let first = TransactionID(opID(40, alice))
        let earlier = TransactionID(opID(35, alice))
        let bobsNote = EntityID(opID(3, bob))
        return [
            Op(id: opID(40, alice), transaction: first, action: .set(star, .x(1))),
            Op(id: opID(41, alice), transaction: first, action: .set(star, .y(2))),
            Op(id: opID(45, alice), transaction: first, action: .set(bobsNote, .zKey(key("a0V")))),
            Op(id: opID(46, alice), transaction: earlier, action: .delete(bobsNote)),
            Op(id: opID(44, alice), transaction: TransactionID(opID(44, alice)), action: .restore(bobsNote)),
        ]
    }

    static func document(_ name: String) -> DocumentName {
        do {
            return try DocumentName(name)
        } catch {
            fatalError("fixture document name \(name) is invalid: \(error)")
        }
    }
}

extension Field {
    /// One value of every field, each type's edge cases included.
    static var everyKind: [Field] {
        [
            .x(-0.0), .y(-1_000_000), .scale(Float.leastNonzeroMagnitude), .rotation(-3.1415927), .zKey(key("a0")),
            .color(Color(rawValue: 0x1234_5678)), .fill(.clear), .weight(0.1), .size(16), .width(1e7), .height(1.5e-7),
            .character("🇺🇦"), .text(""), .font("Helvetica Neue"), .textStyle(.framed), .alignment(.right),
            .shape(.star), .tool(.blur), .endCap(.round), .blob(ValidVectors.blob),
        ]
    }
}
