import EaselTestSupport
import Testing

@testable import EaselModel

/// The counts and lists a document keeps as ops apply (so a view need not
/// walk every record each frame) say what a walk of every record says.
@Suite("Indexes kept as ops apply")
struct DocumentIndexTests {
    @Test(
        "the blobs a document shows are its background's, then its visible images' as its entities read them, in order, each once"
    )
    func shownBlobsAgreeWithTheEntities() {
        var imagesSeen = 0
        for seed in propertySeeds(count: 200, label: "shown blobs") {
            var scenario = ConvergenceScenario(seed: seed)
            scenario.run()
            var random = SeededRandom(seed: seed)
            let document = Document(applying: scenario.log.shuffled(using: &random))
            var expected = document.background.image.map { [$0.blob] } ?? []
            for entity in document.entities {
                guard case .image(let blob, _, _) = entity.content else { continue }
                imagesSeen += 1
                if !expected.contains(blob) { expected.append(blob) }
            }
            #expect(document.shownBlobs == expected, "scenario \(seed)")
        }
        #expect(imagesSeen > 0, "no scenario left an image visible: the test no longer exercises them")
    }

    @Test("the visible count and the erasers agree with a walk of every record after every op, in any order")
    func indexesAgreeWithAWalkAfterEveryOp() {
        var erasersSeen = 0
        for seed in propertySeeds(count: 200, label: "document indexes") {
            var scenario = ConvergenceScenario(seed: seed)
            scenario.run()
            var random = SeededRandom(seed: seed)
            var document = Document()
            for op in scenario.log.shuffled(using: &random) {
                document.apply(op)
                let problem = disagreement(in: document)
                #expect(problem == nil, "scenario \(seed): \(problem ?? "")")
                if problem != nil { return }
            }
            erasersSeen += walkedErasers(of: document).count
            // A batch applies through another path.
            let batched = Document(applying: scenario.log.shuffled(using: &random))
            #expect(disagreement(in: batched) == nil, "scenario \(seed), as one batch")
        }
        #expect(erasersSeen > 0, "no scenario left an eraser visible: the test no longer exercises them")
    }

    @Test("an eraser turned back into a pen, deleted or restored leaves and rejoins the erasers")
    func erasersFollowToolAndVisibility() {
        let stroke = op(1, alice, .create(.stroke, [.tool(.eraser), .zKey(key("a1"))]))
        let other = op(2, alice, .create(.stroke, [.tool(.blur), .zKey(key("a0"))]))
        var document = Document(applying: [stroke, other])
        #expect(document.erasingStrokes.map(\.id) == [other.entity, stroke.entity], "bottom of the z-order first")
        document.apply(op(3, bob, .set(stroke.entity, .tool(.pen))))
        #expect(document.erasingStrokes.map(\.id) == [other.entity])
        document.apply(op(4, bob, .delete(other.entity)))
        #expect(document.erasingStrokes.isEmpty && document.visibleCount == 1)
        document.apply(op(5, bob, .restore(other.entity)))
        document.apply(op(6, bob, .set(stroke.entity, .tool(.eraser))))
        #expect(document.erasingStrokes.map(\.id) == [other.entity, stroke.entity] && document.visibleCount == 2)
    }

    private func walkedErasers(of document: Document) -> [EntityID] {
        document.zOrderedSlots.compactMap { document.records[Int($0)].isEraser ? document.records[Int($0)].id : nil }
    }

    /// What the kept indexes say that a walk of every record does not.
    private func disagreement(in document: Document) -> String? {
        let visible = document.records.filter(\.isVisible).count
        if document.visibleCount != visible { return "visible count \(document.visibleCount), walked \(visible)" }
        let listed = document.erasingStrokes.map(\.id) + document.erasures.map(\.eraser)
        let walked = walkedErasers(of: document)
        // Each list is in z-order; together they hold every eraser once.
        if Set(listed) != Set(walked) || listed.count != walked.count { return "erasers \(listed), walked \(walked)" }
        for list in [document.erasingStrokes.map(\.id), document.erasures.map(\.eraser)]
        where list != walked.filter(list.contains) {
            return "erasers out of z-order: \(list), walked \(walked)"
        }
        return nil
    }
}
