import EaselModel
import EaselProtocol
import Foundation

/// The web canvas's files, read once at start-up and answered from memory,
/// so the service thread never waits on a disk (Docs/web.md).
///
/// `/` is the document picker, `/d/<document>` the canvas (the page reads
/// the document from its path), `/static/<name>` the page's files, a flat
/// folder of them. Nothing else of the disk is reachable: names are matched
/// against what was read, never joined to a path.
public struct WebSite: Sendable {
    struct File: Sendable {
        var contentType: String
        var body: [UInt8]
        var entityTag: String
    }

    private let files: [String: File]

    /// The largest file served; a bigger one is refused at start-up.
    public static let maximumFileBytes = 16 << 20

    /// Whatever a static name may be: letters, digits, `.`, `_` and `-`,
    /// not starting with a dot.
    package static func isServable(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: ".") else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    package static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8", "wasm": "application/wasm",
        "svg": "image/svg+xml", "png": "image/png", "json": "application/json", "txt": "text/plain; charset=utf-8",
        "ttf": "font/ttf", "woff2": "font/woff2",
    ]

    /// What the pages may do: scripts only from this origin (and compiling
    /// the WebAssembly module), no inline script or style attribute
    /// injection, no plugins, no framing.
    package static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// Reads every servable file of `directory` (not its subfolders).
    public init(directory: String) throws(WebSiteError) {
        let manager = FileManager.default
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: directory)
        } catch {
            throw WebSiteError("cannot read the web folder \(directory): \(error.localizedDescription)")
        }
        var files: [String: File] = [:]
        for name in names.sorted() where Self.isServable(name) {
            let path = directory + "/" + name
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            guard let type = Self.contentTypes[name.split(separator: ".").last.map(String.init) ?? ""] else { continue }
            guard let data = manager.contents(atPath: path) else { throw WebSiteError("cannot read \(path)") }
            guard data.count <= Self.maximumFileBytes else {
                throw WebSiteError("\(path) has \(data.count) bytes; at most \(Self.maximumFileBytes) are served")
            }
            let body = [UInt8](data)
            let tag = String(XXH64.hash(body), radix: 16)
            files[name] = File(contentType: type, body: body, entityTag: "\"\(tag)\"")
        }
        for page in ["index.html", "canvas.html"] where files[page] == nil {
            throw WebSiteError("the web folder \(directory) has no \(page): build it with Web/build.sh")
        }
        self.files = files
    }

    /// The names served under `/static/`.
    public var names: [String] { files.keys.sorted() }

    /// The answer to a GET of `path` (no query string), or nil when the path
    /// is not the site's. `ifNoneMatch` is the request's `If-None-Match`.
    public func response(for path: String, ifNoneMatch: String? = nil) -> HTTPResponse? {
        let name: String
        if path == "/" {
            name = "index.html"
        } else if path.hasPrefix("/d/"), (try? DocumentName(String(path.dropFirst(3)))) != nil {
            name = "canvas.html"
        } else if path.hasPrefix("/static/") {
            name = String(path.dropFirst(8))
            guard Self.isServable(name) else { return .text(404, "no such file\n") }
        } else {
            return nil
        }
        guard let file = files[name] else { return .text(404, "no such file\n") }
        var headers = [
            HTTPResponse.Header("etag", file.entityTag),
            // Revalidated every time (an unchanged file costs a 304): names
            // do not change when a new build changes the bytes.
            HTTPResponse.Header("cache-control", "no-cache"),
            HTTPResponse.Header("x-content-type-options", "nosniff"),
        ]
        if file.contentType.hasPrefix("text/html") {
            headers.append(HTTPResponse.Header("content-security-policy", Self.contentSecurityPolicy))
            headers.append(HTTPResponse.Header("referrer-policy", "no-referrer"))
        }
        if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == file.entityTag
        }) {
            return HTTPResponse(status: 304, contentType: file.contentType, headers: headers, body: [])
        }
        return HTTPResponse(status: 200, contentType: file.contentType, headers: headers, body: file.body)
    }
}

/// Why the web folder could not be served.
public struct WebSiteError: Error, CustomStringConvertible, Sendable {
    public var description: String

    package init(_ description: String) {
        self.description = description
    }
}
