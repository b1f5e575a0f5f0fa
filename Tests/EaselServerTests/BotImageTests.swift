import EaselClient
import EaselModel
import Foundation
import Testing

/// `easel bot` with images against a real `easel serve`: a script's `place
/// image "FILE"` and `background image "FILE"` upload the file before the
/// op goes out, and every bot downloads and checks every image it sees.
@Suite("easel bot with images", .serialized)
struct BotImageTests {
    /// A PNG header of the given size and incompressible bytes after it:
    /// the server sniffs the signature, the bot reads the size.
    static func png(width: Int, height: Int, bytes: Int, seed: UInt8) -> [UInt8] {
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        let header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        return header + bigEndian(width) + bigEndian(height) + (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    struct Report: Decodable {
        struct Images: Decodable {
            var uploadsStarted, uploaded, verified: Int
            var uploadFailures, unverified: [String]
        }

        var passed: Bool
        var verdict: String
        var images: Images
    }

    func run(_ script: String, port: Int, document: String, folder: String) throws -> (Report, String) {
        let path = folder + "/bot.easel"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let report = folder + "/report-\(UUID().uuidString).json"
        let run = try runEasel([
            "bot", "--url", "ws://127.0.0.1:\(port)", "--doc", document, "--script", path, "--report", report,
        ])
        let decoded = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        return (decoded, run.output + run.errors)
    }

    @Test func aScriptsImagesAreUploadedBeforeTheirOpsAndAnotherBotDownloadsAndChecksThem() throws {
        let database = temporaryDatabase()
        let folder = (database as NSString).deletingLastPathComponent
        let server = try ServerProcess(database: database)
        defer { server.kill() }
        let photo = Self.png(width: 320, height: 200, bytes: 400_000, seed: 1)
        let paper = Self.png(width: 1000, height: 700, bytes: 100_000, seed: 2)
        try Data(photo).write(to: URL(fileURLWithPath: folder + "/photo.png"))
        try Data(paper).write(to: URL(fileURLWithPath: folder + "/paper.png"))
        let (placed, output) = try run(
            """
            background image "\(folder)/paper.png" fit cover
            place image "\(folder)/photo.png" at 300 300
            expect count 1
            """, port: server.port, document: "bots/photos", folder: folder)
        #expect(placed.passed, "\(output)")
        #expect(placed.images.uploadsStarted == 2 && placed.images.uploaded == 2)
        #expect(placed.images.verified == 2, "both seen, downloaded and checked")
        #expect(output.contains("2 of 2 uploaded; 2 seen, downloaded and checked against their hashes"), "\(output)")

        // Another bot, later, sees both and checks them: the server has the bytes.
        let (seen, _) = try run("expect count 1\n", port: server.port, document: "bots/photos", folder: folder)
        #expect(seen.passed && seen.images.uploadsStarted == 0 && seen.images.verified == 2)
        let document = try readServer(port: server.port, document: "bots/photos")
        #expect(document.hash.hex.count == 16)
    }

    @Test func anImagePlacedAndClearedMidRunIsStillDownloadedAndChecked() throws {
        let database = temporaryDatabase()
        let folder = (database as NSString).deletingLastPathComponent
        let server = try ServerProcess(database: database)
        defer { server.kill() }
        let photo = Self.png(width: 120, height: 80, bytes: 50_000, seed: 3)
        try Data(photo).write(to: URL(fileURLWithPath: folder + "/brief.png"))
        let (run, output) = try run(
            """
            place image "\(folder)/brief.png" at 300 300
            wait 1s
            clear
            expect count 0
            """, port: server.port, document: "bots/brief", folder: folder)
        #expect(run.passed, "\(output)")
        #expect(run.images.verified == 1, "seen while it was there, so checked though gone at the end")
        #expect(output.contains("1 of 1 uploaded; 1 seen, downloaded and checked against their hashes"), "\(output)")
    }

    @Test func anImageTheServerRefusesFailsTheRunAndNobodySeesIt() throws {
        let database = temporaryDatabase()
        let folder = (database as NSString).deletingLastPathComponent
        let server = try ServerProcess(database: database, arguments: ["--max-blob-bytes", "1000"])
        defer { server.kill() }
        try Data(Self.png(width: 10, height: 10, bytes: 5000, seed: 3)).write(to: URL(fileURLWithPath: folder + "/big.png"))
        let (report, output) = try run(
            "place image \"\(folder)/big.png\" at 10 10\n", port: server.port, document: "bots/too-big", folder: folder)
        #expect(!report.passed)
        #expect(report.images.uploadFailures.count == 1 && report.images.uploadFailures[0].contains("413"), "\(output)")
        #expect(report.images.verified == 0)
    }

    @Test func aFileThatIsNotAnImageFailsTheBotAtItsLine() throws {
        let database = temporaryDatabase()
        let folder = (database as NSString).deletingLastPathComponent
        let server = try ServerProcess(database: database)
        defer { server.kill() }
        try "plain text".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
        let (report, output) = try run(
            "place emoji \"🍎\" at 5 5\nplace image \"\(folder)/notes.txt\" at 10 10\n", port: server.port,
            document: "bots/not-image", folder: folder)
        #expect(!report.passed)
        #expect(output.contains("line 2, column 1: \(folder)/notes.txt is not a PNG, JPEG, GIF or WebP image"), "\(output)")
        #expect(report.images.uploadsStarted == 0)
    }
}
