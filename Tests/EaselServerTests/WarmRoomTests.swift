import EaselModel
import EaselProtocol
import EaselStore
import Foundation
import Testing

/// The page at `/d/<document>` and its socket name the document half a
/// second before the page can say hello: the server loads a stored
/// document's room then, and creates nothing for a name never stored.
@Suite struct WarmRoomTests {
    @Test("a socket or a page at /d/<document> loads a stored document's room before any hello, and creates none")
    func namingADocumentLoadsItsRoomBeforeTheHello() throws {
        let database = temporaryDatabase()
        do {
            let store = try OpStore(path: database)
            try store.createDocument("warm/socket", epoch: Epoch(rawValue: 1), at: 0)
            try store.createDocument("warm/page", epoch: Epoch(rawValue: 2), at: 0)
        }
        let site = FileManager.default.temporaryDirectory.appendingPathComponent("easel-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: site) }
        for page in ["index.html", "canvas.html"] {
            try Data("<!doctype html><title>Easel</title>\n".utf8).write(to: site.appendingPathComponent(page))
        }
        let server = try ServerProcess(database: database, arguments: ["--web", site.path])
        defer { server.kill() }

        func rooms() throws -> String? {
            let scrape = try OutsideClient.run(["\(server.port)", "http", "/metrics"])
            return ((scrape["body"] as? String) ?? "").split(separator: "\n").first { $0.hasPrefix("easel_rooms ") }
                .map(String.init)
        }
        /// The rooms count once it settles on `expected` (a room loading
        /// for a name never stored counts until storage answers), or the
        /// last one read after 10 s.
        func roomsSettle(on expected: String) throws -> String? {
            let deadline = Date().addingTimeInterval(10)
            var read = try rooms()
            while read != expected, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.1)
                read = try rooms()
            }
            return read
        }
        func request(_ text: String) throws -> String {
            let hex = Array(text.utf8).map { String(format: "%02x", $0) }.joined()
            return try OutsideClient.run(["\(server.port)", "raw-http", hex])["answer"] as? String ?? ""
        }
        func upgrade(_ path: String) throws -> String {
            try request(
                "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Protocol: easel.v1\r\n\r\n")
        }

        #expect(try rooms() == "easel_rooms 0.0")
        #expect(try upgrade("/d/warm/socket").hasPrefix("HTTP/1.1 101"))
        #expect(try roomsSettle(on: "easel_rooms 1.0") == "easel_rooms 1.0", "a socket that never said hello loaded the room")
        #expect(try upgrade("/d/warm/never-stored").hasPrefix("HTTP/1.1 101"))
        #expect(try roomsSettle(on: "easel_rooms 1.0") == "easel_rooms 1.0", "no room stays for a name never stored")
        #expect(try request("GET /d/warm/page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        #expect(try roomsSettle(on: "easel_rooms 2.0") == "easel_rooms 2.0", "the page loaded the room")
        #expect(try OpStore(path: database).documentInfo("warm/never-stored") == nil)
    }
}
