import EaselModel
import EaselProtocol
import EaselRender
import EaselStore
import Foundation
import Testing

/// `easel render` on a real SQLite file: the SVG of the state at a
/// position, and clear refusals.
@Suite struct RenderCommandTests {
    /// A database holding a document of four ops; the documents after
    /// each of them.
    private func database() throws -> (path: String, states: [Document]) {
        let path = temporaryDatabase()
        let store = try OpStore(path: path)
        try store.createDocument("render/one", epoch: Epoch(rawValue: 1), at: 0)
        var editor = Editor(replica: ReplicaID(rawValue: 0xC1))
        var ops = try editor.perform(.place(.emoji("🍎", size: 40), at: Point(x: 50, y: 50)))
        ops += try editor.perform(.place(.shape(.star, width: 80, height: 80), at: Point(x: 150, y: 50)))
        _ = try editor.send(.tap(at: Point(x: 150, y: 50)))
        ops += try editor.perform(.setStyle(.fill(Color(rawValue: 0xFFCC_00FF))))
        ops += try editor.perform(.place(.text("hi", font: "Menlo", size: 20), at: Point(x: 100, y: 150)))
        let logged = ops.enumerated().map { LoggedOp(position: UInt64($0 + 1), op: $1, author: "ada", receivedAt: 0) }
        try store.append(logged, to: "render/one")
        var states: [Document] = []
        var document = Document()
        for op in ops {
            document.apply(op)
            states.append(document)
        }
        return (path, states)
    }

    @Test func theSVGIsTheRenderersDrawingOfTheStateAtThePosition() throws {
        let (path, states) = try database()
        let output = path + ".svg"
        let latest = try runEasel(["render", "--db", path, "--doc", "render/one", "-o", output])
        #expect(latest.status == 0, "\(latest.errors)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == SVGRenderer().render(states[states.count - 1]))
        let early = try runEasel(["render", "--db", path, "--doc", "render/one", "--at", "2", "-o", "-"])
        #expect(early.output == SVGRenderer().render(states[1]))
        #expect(early.output.components(separatedBy: "<g ").count - 1 == 2)
    }

    @Test func aPositionPastTheHeadOrAMissingDocumentIsRefusedAndWritesNothing() throws {
        let (path, _) = try database()
        let output = path + ".svg"
        let late = try runEasel(["render", "--db", path, "--doc", "render/one", "--at", "9", "-o", output])
        #expect(late.status == 1)
        #expect(late.errors.contains("position 9 is past the end of render/one: its head is"))
        let missing = try runEasel(["render", "--db", path, "--doc", "render/none", "-o", output])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no document render/none"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aCompactedLogRendersFromItsSnapshotAndRefusesPositionsItFolded() throws {
        let (path, states) = try database()
        let store = try OpStore(path: path)
        _ = try store.snapshot("render/one", at: 0)
        try store.compact("render/one")
        let latest = try runEasel(["render", "--db", path, "--doc", "render/one", "-o", "-"])
        #expect(latest.status == 0, "\(latest.errors)")
        #expect(latest.output == SVGRenderer().render(states[states.count - 1]))
        let folded = try runEasel(["render", "--db", path, "--doc", "render/one", "--at", "1", "-o", "-"])
        #expect(folded.status == 1)
        #expect(folded.errors.contains("compacted into a snapshot; the earliest state is at 4"), "\(folded.errors)")
    }
}

@Suite struct RenderEmbeddedImagesTests {
    @Test("--embed-images puts a stored blob's bytes in the SVG as a data: URL and names a missing one")
    func embeddedImagesCarryTheirBytes() throws {
        let path = temporaryDatabase()
        let store = try OpStore(path: path)
        try store.createDocument("render/images", epoch: Epoch(rawValue: 1), at: 0)
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
        let stored = BlobHash(bytes: [UInt8](repeating: 0xAB, count: 32))
        let missing = BlobHash(bytes: [UInt8](repeating: 0xCD, count: 32))
        let blobs = try BlobStore(besideDatabase: path)
        let upload = try blobs.beginUpload(at: 0)
        try blobs.appendChunk(bytes, to: upload, sequence: 0)
        _ = try blobs.finishUpload(upload, as: stored, size: 11, type: .png, document: "render/images", at: 0)
        var editor = Editor(replica: ReplicaID(rawValue: 0xC2))
        var ops = try editor.perform(.place(.image(stored, width: 40, height: 30), at: Point(x: 50, y: 50)))
        ops += try editor.perform(.place(.image(missing, width: 40, height: 30), at: Point(x: 150, y: 50)))
        try store.append(
            ops.enumerated().map { LoggedOp(position: UInt64($0 + 1), op: $1, author: "ada", receivedAt: 0) },
            to: "render/images")

        let embedded = try runEasel(["render", "--db", path, "--doc", "render/images", "--embed-images", "-o", "-"])
        #expect(embedded.status == 0)
        #expect(embedded.output.contains("href=\"data:image/png;base64,\(Data(bytes).base64EncodedString())\""))
        #expect(embedded.output.contains("href=\"blobs/\(missing)\""))
        #expect(embedded.errors.contains("no blob \(missing) is stored for render/images"))
        let plain = try runEasel(["render", "--db", path, "--doc", "render/images", "-o", "-"])
        #expect(plain.output.contains("href=\"blobs/\(stored)\"") && !plain.output.contains("data:"))
    }
}
