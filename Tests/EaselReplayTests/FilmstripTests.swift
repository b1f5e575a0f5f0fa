import EaselModel
import EaselReplay
import EaselTestSupport
import Foundation
import Testing

/// `--frames`: a frame every N ops and the last, in one fixed frame, and a
/// page that shows them all.
@Suite struct FilmstripTests {
    @Test func framesComeEveryNOpsAndAtTheEndAllInOneFrame() throws {
        let history = recordedSession(seed: 21)
        let strip = try Filmstrip(history, every: 10)
        var expected = Array(stride(from: UInt64(0), through: history.head, by: 10))
        if expected.last != history.head { expected.append(history.head) }
        #expect(strip.frames.map(\.position) == expected)
        let viewBoxes = Set(strip.frames.map { $0.svg.components(separatedBy: "viewBox=\"")[1].prefix { $0 != "\"" } })
        #expect(viewBoxes.count == 1)
        #expect(Set(strip.frames.map(\.fileName)).count == strip.frames.count)
        #expect(strip.frames.last?.caption.contains(history.ops.last?.author ?? "?") == true)
    }

    @Test func theIndexPageShowsEveryFrameAndEscapesCaptions() throws {
        var history = recordedSession(seed: 4, steps: 40)
        for index in history.ops.indices { history.ops[index].author = "<b>&co" }
        let strip = try Filmstrip(history, every: 5)
        let page = strip.indexHTML
        for frame in strip.frames { #expect(page.contains("src=\"\(frame.fileName)\"")) }
        #expect(page.contains("&lt;b&gt;&amp;co"))
        #expect(!page.contains("<b>&co"))
        #expect(throws: ReplayError.self) { try Filmstrip(history, every: 0) }
    }
}
