import EaselTestSupport
import Testing

@testable import EaselModel

#if canImport(Glibc)
    import Glibc
#endif

@Suite("README")
struct ReadmeTourTests {
    @Test("the README's code blocks are the code these tests run")
    func readmeBlocksMatchThisFile() throws {
        let readme = try readFile(repositoryRoot + "/README.md")
        let thisFile = try readFile(#filePath)
        let blocks = ReadmeCode.swiftBlocks(in: readme, after: "## A tour of the model")
        try #require(blocks.count == 2)
        #expect(blocks[0] == "import EaselModel\n\n" + (ReadmeCode.section(of: thisFile, marker: "tour") ?? ""))
        #expect(blocks[1] == ReadmeCode.section(of: thisFile, marker: "editor-tour"))
    }

    @Test("the README's editor tour runs")
    func readmeEditorTourRuns() throws {
        // editor-tour:begin
        var editor = Editor(replica: .random())
        try editor.perform(.place(.emoji("🦊", size: 48), at: Point(x: 120, y: 80)))
        try editor.send(.tap(at: Point(x: 120, y: 80)))  // select the fox
        try editor.send(.dragBegan(at: Point(x: 120, y: 80)))
        try editor.send(.dragEnded(translation: Vector(dx: 30, dy: 0)))  // one transaction
        try editor.perform(.undo)  // the fox goes back
        // editor-tour:end
        #expect(editor.document.entities.map(\.transform) == [Transform(x: 120, y: 80)])
        #expect(editor.state.selection.count == 1)
    }

    @Test("the README's tour runs and converges")
    func readmeTourRuns() throws {
        // tour:begin
        // Each editing session is a replica with its own Lamport clock.
        var alice = LamportClock(replica: ReplicaID(rawValue: 0xA11CE))
        var bob = LamportClock(replica: ReplicaID(rawValue: 0xB0B))

        // Alice places a star. An entity is named by the op that created it.
        var placing = try alice.beginTransaction()
        let star = try placing.create(.emoji, [.character("⭐️"), .size(48), .x(100), .y(80), .zKey(.first)])
        let placeStar = alice.commit(placing)

        var aliceCanvas = Document()
        var bobCanvas = Document()
        for op in placeStar {
            aliceCanvas.apply(op)
            bobCanvas.apply(op)
            bob.observe(op.id.counter)
        }

        // Both drag the star at once: each move is one set op in its own transaction.
        var aliceDrag = try alice.beginTransaction()
        try aliceDrag.set(.x(150), of: star)
        let aliceMove = alice.commit(aliceDrag)

        var bobDrag = try bob.beginTransaction()
        try bobDrag.set(.x(20), of: star)
        let bobMove = bob.commit(bobDrag)

        // The moves cross on the network and arrive in opposite orders.
        for op in aliceMove + bobMove { aliceCanvas.apply(op) }
        for op in bobMove + aliceMove { bobCanvas.apply(op) }

        // Same counter, so the higher replica ID wins: both canvases agree.
        print(aliceCanvas[star]?.transform.x ?? .nan)  // 150.0
        print(aliceCanvas.stateHash == bobCanvas.stateHash)  // true
        print(bobCanvas.stateHash.emojiKey)  // four emoji, the same on both
        // tour:end
        #expect(aliceCanvas[star]?.transform.x == 150)
        #expect(aliceCanvas.stateHash == bobCanvas.stateHash)
        #expect(aliceCanvas.canonicalEncoding == bobCanvas.canonicalEncoding)
    }
}

/// The repository root: this file lives in Tests/EaselModelTests/.
let repositoryRoot: String = {
    var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(3)
    return components.joined(separator: "/")
}()

struct FileReadError: Error, CustomStringConvertible {
    let path: String
    var description: String { "cannot read \(path)" }
}

/// Reads a whole text file with the C library (the model tests need no Foundation).
func readFile(_ path: String) throws -> String {
    guard let file = fopen(path, "rb") else { throw FileReadError(path: path) }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { break }
        bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
