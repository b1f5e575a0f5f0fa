import EaselModel

/// The fixture document whose canonical bytes and hash are pinned: one
/// entity of every kind, a deleted one, a restored one, a set before its
/// create, a stroke with a waiting chunk, and a conflicting write.
public enum HashFixture {
    public static var ops: [Op] {
        let blob = BlobHash(
            words: (0x0102_0304_0506_0708, 0x1112_1314_1516_1718, 0x2122_2324_2526_2728, 0x3132_3334_3536_3738))
        let star = EntityID(opID(1, alice))
        let stroke = EntityID(opID(4, alice))
        let note = EntityID(opID(3, bob))
        return [
            op(1, alice, .create(.emoji, [.character("⭐️"), .size(40), .x(10), .y(-20.5), .zKey(key("a0"))])),
            op(
                2, alice, .create(.shape, [.shape(.bubble), .width(120), .height(80), .fill(.white), .zKey(key("a1"))])),
            op(
                3, bob,
                .create(
                    .text,
                    [
                        .text("Hello, canvas"), .font("Menlo"), .size(18), .textStyle(.outlined), .alignment(.center),
                        .zKey(key("a2")),
                    ])),
            op(
                4, alice,
                .create(
                    .stroke,
                    [
                        .tool(.neon), .endCap(.arrow), .weight(6), .color(Color(red: 255, green: 0, blue: 128)),
                        .zKey(key("a3")),
                    ])),
            op(5, alice, .append(stroke, start: 0, samples: [sample(0, 0, 0, force: 0.5), sample(3, 4, 0.016)])),
            op(6, alice, .append(stroke, start: 5, samples: [sample(9, 9, 0.1)])),
            op(
                5, carol,
                .create(.image, [.blob(blob), .width(640), .height(480), .rotation(0.25), .scale(2), .zKey(key("a4"))])),
            op(6, bob, .set(star, .x(11))),
            op(6, carol, .set(star, .x(12))),
            op(7, carol, .delete(EntityID(opID(2, alice)))),
            op(8, bob, .delete(note)),
            op(9, bob, .restore(note)),
            op(9, carol, .set(EntityID(opID(50, bob)), .y(1))),
        ]
    }
}
