import ArgumentParser
import EaselModel
import EaselRender
import EaselReplay
import EaselStore
import Foundation

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a document, from its database, as SVG (or PNG through rsvg-convert).",
        discussion: """
            The same document always gives the same bytes. Example:

              easel render --db easel.db --doc team/board-1 --at 120 -o board.svg
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The document.") var doc: String
    @Option(help: "The state after the op at this position; the latest when not given.") var at: UInt64?
    @Option(name: .shortAndLong, help: "Where to write the SVG (or PNG); - for standard output.") var output: String
    @Flag(help: "Write PNG instead, rasterised by rsvg-convert (Debian: librsvg2-bin).") var png = false
    @Flag(help: "Put the images' bytes in the SVG (data: URLs), from the blobs stored for the document.")
    var embedImages = false

    func run() throws {
        try database.requireSQLite("easel render")
        let history = try HistorySource.loadDatabase(path: database.db, document: doc)
        let document = try history.document(at: at)
        var options = SVGRenderer.Options()
        if embedImages { options.blobPath = try embeddedImages(of: document) }
        let svg = SVGRenderer(options: options).render(document)
        let bytes = png ? try rasterise(svg) : Data(svg.utf8)
        if output == "-" {
            FileHandle.standardOutput.write(bytes)
        } else {
            do {
                try bytes.write(to: URL(fileURLWithPath: output))
            } catch {
                throw CommandError("cannot write \(output): \(error.localizedDescription)")
            }
        }
    }

    /// Each image's blob as a data: URL; a blob the database lacks for the
    /// document keeps its path (the placeholder shows) and is named on
    /// standard error.
    private func embeddedImages(of document: Document) throws -> @Sendable (BlobHash) -> String {
        let store = try BlobStore.reading(besideDatabase: database.db)
        var urls: [BlobHash: String] = [:]
        var missing: [BlobHash] = []
        for hash in document.shownBlobs {
            guard let store, let info = try store.blobInfo(hash, document: doc) else {
                missing.append(hash)
                continue
            }
            var bytes = Data()
            try store.readBlob(hash) { bytes.append(contentsOf: $0) }
            urls[hash] = "data:\(info.type.mediaType);base64,\(bytes.base64EncodedString())"
        }
        for hash in missing {
            FileHandle.standardError.write(
                Data("easel: no blob \(hash) is stored for \(doc): its image shows a placeholder\n".utf8))
        }
        let found = urls
        return { hash in found[hash] ?? "blobs/\(hash)" }
    }

    private func rasterise(_ svg: String) throws -> Data {
        guard let converter = findExecutable("rsvg-convert") else {
            throw CommandError(
                "--png needs rsvg-convert, which is not installed (Debian: apt-get install librsvg2-bin)")
        }
        let process = Process()
        process.executableURL = converter
        process.arguments = ["--format", "png"]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Fed from another thread, so a big PNG cannot fill the output pipe
        // while the input is still being written.
        let svgData = Data(svg.utf8)
        let writer = Thread {
            input.fileHandleForWriting.write(svgData)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let png = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw CommandError("rsvg-convert failed: \(message)")
        }
        return png
    }
}

/// An executable on the PATH.
func findExecutable(_ name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}
