@testable import EaselModel
import EaselTestSupport
import Testing

@testable import EaselRender

@Suite("Rendering the document's background")
struct BackgroundRenderTests {
    let photo = BlobHash(words: (0xAB, 1, 2, 3))

    func document(_ changes: [BackgroundChange]) throws -> Document {
        var editor = Editor(replica: ReplicaID(rawValue: 0xB2))
        for change in changes { try editor.perform(.setBackground(change)) }
        return editor.document
    }

    @Test func theBackgroundColourPaintsTheFrameInsteadOfTheDefault() throws {
        let svg = SVGRenderer().render(try document([.color(Color(red: 250, green: 244, blue: 230))]))
        #expect(svg.contains("fill=\"#faf4e6\""))
        #expect(!svg.contains("<image"))
    }

    @Test func theBackgroundImageLiesUnderEveryEntityInItsBoxCentredAtTheOriginAsItsFitSays() throws {
        for (fit, aspect) in [(BackgroundFit.contain, "xMidYMid meet"), (.cover, "xMidYMid slice"), (.stretch, "none")] {
            var editor = Editor(replica: ReplicaID(rawValue: 0xB2))
            try editor.perform(.place(.emoji("🦊", size: 40), at: Point(x: 10, y: 10)))
            try editor.perform(.setBackground(.image(photo, width: 800, height: 600, fit: fit)))
            let svg = SVGRenderer().render(editor.document)
            let image = try #require(svg.range(of: "<image id=\"background-image\" x=\"-400\" y=\"-300\" width=\"800\" height=\"600\""))
            let fox = try #require(svg.range(of: "🦊"))
            #expect(image.lowerBound < fox.lowerBound, "beneath every entity")
            #expect(svg.contains("href=\"blobs/\(photo)\" preserveAspectRatio=\"\(aspect)\""))
            #expect(svg.contains("viewBox=\"-416 -316 832 632\""), "the frame takes in the background's box")
        }
    }

    @Test func aBlurEraserOverTheBackgroundBlursItsRealPixelsAndThePixelEraserLeavesItAlone() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 0xB2))
        try editor.perform(.setBackground(.image(photo, width: 400, height: 300, fit: .cover)))
        // The standard viewport puts the document's origin at the screen's.
        func erase(_ tool: StrokeTool, y: Float) throws {
            try editor.perform(.setDrawing(DrawingSettings(tool: tool, weight: 24)))
            try editor.send(.drawBegan(DrawPoint(location: Point(x: -100, y: y), time: 0)))
            try editor.send(.drawMoved((1...20).map { DrawPoint(location: Point(x: -100 + Float($0) * 10, y: y), time: Float($0) / 60) }))
            try editor.send(.drawEnded)
        }
        try erase(.blur, y: 0)
        try erase(.eraser, y: 50)
        let svg = SVGRenderer().render(editor.document)
        #expect(svg.contains("filter=\"url(#blur)\"><use href=\"#background-image\"/>"))
        let background = try #require(svg.split(separator: "\n").first { $0.contains("class=\"background\"") })
        #expect(!background.contains("data-id=\"background\" mask="), "erasing pixels shows the background, never clears it")
        #expect(!background.contains("fill=\"#000\""), "no pixel eraser's ink in its masks")
    }

    @Test func aDocumentWithoutABackgroundRendersAsItDidBefore() throws {
        var editor = Editor(replica: ReplicaID(rawValue: 0xB2))
        try editor.perform(.place(.emoji("🦊", size: 40), at: Point(x: 10, y: 10)))
        let svg = SVGRenderer().render(editor.document)
        #expect(!svg.contains("background"))
        #expect(SVGRenderer().backgroundFragment(of: editor.document) == "")
    }
}
