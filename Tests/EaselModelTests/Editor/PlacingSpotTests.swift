import Testing

@testable import EaselModel

/// Where the page puts a new emoji or image: the middle of the view, or a
/// step off whatever is already centred there.
@Suite("Editor: placing spot")
struct PlacingSpotTests {
    let middle = Point(x: 400, y: 300)

    func placeEmoji(_ editor: inout Editor, at point: Point) throws {
        try editor.perform(.place(.emoji("⭐️", size: 40), at: point))
    }

    @Test("a new item goes to the middle when nothing sits there")
    func middleWhenFree() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 7))
        try placeEmoji(&editor, at: Point(x: 100, y: 100))
        #expect(editor.placingSpot(near: middle) == middle)
    }

    @Test("items placed one after another step down and right instead of piling up, and the middle frees again")
    func stepsOffWhatIsThere() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 7))
        var spots: [Point] = []
        for _ in 0..<3 {
            let spot = editor.placingSpot(near: middle)
            spots.append(spot)
            try placeEmoji(&editor, at: spot)
        }
        let step = Editor.placingStep
        #expect(spots == [middle, Point(x: 400 + step, y: 300 + step), Point(x: 400 + 2 * step, y: 300 + 2 * step)])
    }

    @Test("a spot whose item moved away is free again")
    func movedAwayFreesTheSpot() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 7))
        try editor.perform(.selectPlaced(true))
        try placeEmoji(&editor, at: middle)
        #expect(editor.placingSpot(near: middle) != middle)
        try editor.perform(.nudge(by: Vector(dx: 0, dy: 200)))
        #expect(editor.placingSpot(near: middle) == middle)
    }

    @Test("the spot is on the screen as the view stands: zoomed and panned, the same screen steps")
    func followsTheViewport() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 7))
        try editor.perform(.setViewport(.zoomTo(2, around: .zero)))
        try editor.perform(.setViewport(.pan(by: Vector(dx: 30, dy: -10))))
        try placeEmoji(&editor, at: middle)
        let step = Editor.placingStep
        #expect(editor.placingSpot(near: middle) == Point(x: 400 + step, y: 300 + step))
    }

    @Test("when every step is taken the next item goes back to the middle")
    func backToTheMiddleWhenFull() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 7))
        for step in 0..<Editor.placingSteps {
            let offset = Float(step) * Editor.placingStep
            try placeEmoji(&editor, at: Point(x: middle.x + offset, y: middle.y + offset))
        }
        #expect(editor.placingSpot(near: middle) == middle)
    }
}
