import EaselHTTP
@testable import EaselServer
import Foundation
import Testing

/// The web canvas's files as the server answers them, from a real folder.
@Suite struct WebSiteTests {
    /// A folder with the two pages, a script, a module, and files that must
    /// never be served.
    static func folder(extra: [String: [UInt8]] = [:]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("easel-site-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path + "/sub", withIntermediateDirectories: true)
        let files: [String: [UInt8]] = [
            "index.html": Array("<!doctype html><title>picker</title>".utf8),
            "canvas.html": Array("<!doctype html><title>canvas</title>".utf8),
            "canvas.mjs": Array("export {}".utf8), "easel.wasm": [0, 0x61, 0x73, 0x6D, 1, 0, 0, 0],
            ".secret.txt": Array("hidden".utf8), "notes.exe": [1], "sub/inner.mjs": Array("nested".utf8),
        ].merging(extra) { _, new in new }
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name)) }
        return path
    }

    @Test func thePickerIsAtTheRootAndTheCanvasAtEveryDocumentPath() throws {
        let site = try WebSite(directory: Self.folder())
        #expect(site.response(for: "/")?.body == Array("<!doctype html><title>picker</title>".utf8))
        #expect(site.response(for: "/d/team/board-1")?.body == Array("<!doctype html><title>canvas</title>".utf8))
        #expect(site.response(for: "/d/../etc") == nil)
        #expect(site.response(for: "/d/") == nil)
        #expect(site.response(for: "/elsewhere") == nil)
    }

    @Test func filesGoOutWithTheirContentTypeAndAnEntityTag() throws {
        let site = try WebSite(directory: Self.folder())
        let module = try #require(site.response(for: "/static/easel.wasm"))
        #expect(module.status == 200 && module.contentType == "application/wasm")
        #expect(module.headers.contains { $0.name == "etag" })
        #expect(module.headers.contains { $0.name == "x-content-type-options" && $0.value == "nosniff" })
        #expect(site.response(for: "/static/canvas.mjs")?.contentType == "text/javascript; charset=utf-8")
    }

    @Test func pagesForbidInlineScriptThroughTheirContentSecurityPolicy() throws {
        let site = try WebSite(directory: Self.folder())
        let page = try #require(site.response(for: "/"))
        let policy = try #require(page.headers.first { $0.name == "content-security-policy" }?.value)
        #expect(policy.contains("script-src 'self' 'wasm-unsafe-eval';"))
        #expect(!policy.contains("unsafe-inline"))
        #expect(site.response(for: "/static/canvas.mjs")?.headers.contains { $0.name == "content-security-policy" } == false)
    }

    @Test func nothingOutsideTheFolderOrHiddenOrOfAnUnknownKindIsServed() throws {
        let site = try WebSite(directory: Self.folder())
        for path in [
            "/static/../Package.swift", "/static/.secret.txt", "/static/notes.exe", "/static/sub/inner.mjs",
            "/static/", "/static/%2e%2e", "/static/missing.mjs",
        ] {
            #expect(site.response(for: path)?.status == 404, "\(path)")
        }
        #expect(site.names == ["canvas.html", "canvas.mjs", "easel.wasm", "index.html"])
    }

    @Test func anUnchangedFileIsAnsweredWith304() throws {
        let site = try WebSite(directory: Self.folder())
        let first = try #require(site.response(for: "/static/canvas.mjs"))
        let tag = try #require(first.headers.first { $0.name == "etag" }?.value)
        let again = try #require(site.response(for: "/static/canvas.mjs", ifNoneMatch: "\"other\", \(tag)"))
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(site.response(for: "/static/canvas.mjs", ifNoneMatch: "\"other\"")?.status == 200)
    }

    @Test func aFolderWithoutThePagesOrWithAFileOverTheLimitIsRefusedAtStartUp() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("easel-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(throws: WebSiteError.self) { try WebSite(directory: empty.path) }
        #expect(throws: WebSiteError.self) { try WebSite(directory: empty.path + "/missing") }
        let big = [UInt8](repeating: 0, count: WebSite.maximumFileBytes + 1)
        let withBig = try Self.folder(extra: ["big.wasm": big])
        defer { try? FileManager.default.removeItem(atPath: withBig) }
        #expect(throws: WebSiteError.self) { try WebSite(directory: withBig) }
    }
}
