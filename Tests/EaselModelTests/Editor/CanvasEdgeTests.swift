import EaselTestSupport
import Testing

@testable import EaselModel

/// Positions in a push lie within ±1,000,000 (`ModelLimits.coordinate`):
/// ops beyond are refused, and the editor never writes one; stored ops are
/// not held to it (EaselProtocolTests: a document written before still
/// loads).
@Suite("The canvas's edge")
struct CanvasEdgeTests {
    let star = Canvas.star
    let edge = ModelLimits.coordinate

    private func op(_ action: Op.Action) -> Op {
        Canvas.aliceOp(20, action)
    }

    @Test func aPositionBeyondTheEdgeIsRefusedAndOneAtItIsNot() throws {
        #expect(throws: ModelError.beyondCanvas(.x)) { try op(.set(star, .x(2_000_000))).validatePositions() }
        #expect(throws: ModelError.beyondCanvas(.y)) { try op(.set(star, .y(-1_000_001))).validatePositions() }
        #expect(throws: ModelError.beyondCanvas(.x)) {
            try op(.create(.emoji, [.character("🌲"), .x(.greatestFiniteMagnitude)])).validatePositions()
        }
        try op(.set(star, .x(edge))).validatePositions()
        try op(.set(star, .y(-edge))).validatePositions()
        // Other numbers need only be finite.
        try op(.set(star, .width(10_000_000))).validatePositions()
        #expect(throws: ModelError.nonFiniteNumber(.x)) { try op(.set(star, .x(.nan))).validate() }
    }

    @Test func aStrokeSampleOrAnErasedEntityBeyondTheEdgeIsRefused() throws {
        let far = StrokeSample(x: 0, y: 1_500_000, time: 0)
        #expect(throws: ModelError.self) { try op(.append(star, start: 0, samples: [far])).validatePositions() }
        let erased = ErasedEntity(entity: star, transform: Transform(x: -3_000_000, y: 0))
        #expect(throws: ModelError.beyondCanvas(.erases)) {
            try op(.create(.stroke, [.tool(.eraser), .erases([erased])])).validatePositions()
        }
    }

    @Test func aDragPastTheEdgeStopsAtIt() throws {
        var store = EditorTestStore(Canvas.editor())
        try store.send(.dragBegan(at: Point(x: 100, y: 100))) { $0.gesture = .moving([star], by: .zero) }
        try store.send(
            .dragEnded(translation: Vector(dx: 3_000_000, dy: -3_000_000)),
            ops: [Canvas.aliceOp(7, .set(star, .x(edge))), Canvas.aliceOp(8, in: 7, .set(star, .y(-edge)))]
        ) { $0.gesture = nil }
        #expect(store.editor.document[star]?.transform == Transform(x: edge, y: -edge))
    }
}
