import EaselHTTP
import Foundation

extension FuzzTarget {
    /// What the server reads of an HTTP request before libwebsockets does,
    /// and the paths it answers from that head: the site's files, blobs,
    /// health and metrics.
    static let http = FuzzTarget(
        name: "http",
        property: """
            a request head is refused with 400, 414 or 431, or is whole and free of NUL, and then pieces \
            of it cut shorter were still incomplete (a head that trickles in is never refused early); its \
            path routes to a blob request naming exactly its hash, or a refusal with a 4xx status, or a site \
            file that is one of the site's own
            """,
        check: { input in
            switch RequestHead.check(input) {
            case .incomplete:
                return
            case .refused(let refusal):
                precondition([400, 414, 431].contains(refusal.status), "refused with \(refusal.status)")
            case .complete(let length):
                precondition(length <= input.count && input[length - 4..<length].elementsEqual([13, 10, 13, 10]))
                precondition(!input[..<length].contains(0), "a NUL byte in a passed head")
                for cut in cuts(below: length) {
                    precondition(
                        RequestHead.check(input[..<cut]) == .incomplete, "refused after \(cut) of \(length) bytes")
                }
                route(Request(head: input[..<length]))
            }
        },
        seeds: { _ in
            [
                "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /d/boards/one HTTP/1.1\r\nIf-None-Match: \"1\", \"2\"\r\n\r\n",
                "GET /static/page.mjs HTTP/1.1\r\n\r\n",
                "PUT /blobs/\(String(repeating: "ab", count: 32))?doc=boards/one HTTP/1.1\r\n"
                    + "Authorization: Bearer abc\r\nContent-Length: 3\r\n\r\nxyz",
                "HEAD /blobs/\(String(repeating: "0f", count: 32))?doc=a HTTP/1.1\r\n\r\n",
                "GET /healthz HTTP/1.1\r\n\r\n",
                "GET /metrics HTTP/1.1\r\n\r\n",
                "GET /d/x HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            ].enumerated().map { ("request-\($0.offset)", Array($0.element.utf8)) }
        })

    /// Up to 16 lengths shorter than `length`, spread over it, the last
    /// byte's always among them.
    private static func cuts(below length: Int) -> [Int] {
        guard length > 1 else { return [] }
        let step = max(1, length / 16)
        return Array(Set(stride(from: 1, to: length, by: step)).union([length - 1])).sorted()
    }

    private static func route(_ request: Request) {
        switch HTTPRoute(path: request.path) {
        case .health, .metrics:
            break
        case .blob:
            let document = request.query.first { $0.hasPrefix("doc=") }.map { String($0.dropFirst(4)) }
            switch BlobRequest.parse(path: request.path, method: request.methodCode, document: document) {
            case .request(let blob):
                precondition(request.path == BlobRequest.prefix + blob.hash.description, "another hash than the path's")
            case .refused(let response):
                precondition([400, 404, 405].contains(response.status), "a blob refused with \(response.status)")
            }
            if let bearer = BlobRequest.bearer(from: request.header("authorization")) {
                precondition(!bearer.isEmpty && bearer.trimmingCharacters(in: .whitespaces) == bearer)
            }
        case .site:
            guard let site = FuzzSite.shared,
                let response = site.site.response(for: request.path, ifNoneMatch: request.header("if-none-match"))
            else { return }
            switch response.status {
            case 200: precondition(site.bodies.contains(response.body), "a body that is none of the site's files")
            case 304, 404: break
            default: preconditionFailure("the site answered \(response.status)")
            }
        }
    }
}

/// A passed head, taken apart the way libwebsockets gives it to the server:
/// the method, the path without its query, the query's parts, the headers.
private struct Request {
    var methodCode: Int32 = 0
    var path = ""
    var query: [Substring] = []
    var headers: [(String, String)] = []

    init(head: ArraySlice<UInt8>) {
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n")
        guard let requestLine = lines.first else { return }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        methodCode = ["GET": 1, "HEAD": 2, "PUT": 3][String(parts[0])] ?? 0
        let target = parts.count > 1 ? parts[1] : ""
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(pieces.first ?? "")
        query = pieces.count > 1 ? pieces[1].split(separator: "&") : []
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    func header(_ name: String) -> String? {
        headers.first { $0.0 == name }?.1
    }
}

/// A web folder of three files, written once to a temporary folder.
private struct FuzzSite: Sendable {
    let site: WebSite
    let bodies: Set<[UInt8]>

    static let shared: FuzzSite? = {
        let folder = NSTemporaryDirectory() + "easel-fuzz-site-\(getpid())"
        let files = ["index.html": "<p>picker</p>", "canvas.html": "<p>canvas</p>", "page.mjs": "export {}"]
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, body) in files { try body.write(toFile: "\(folder)/\(name)", atomically: true, encoding: .utf8) }
            let site = try WebSite(directory: folder)
            try FileManager.default.removeItem(atPath: folder)
            return FuzzSite(site: site, bodies: Set(files.values.map { Array($0.utf8) }))
        } catch {
            return nil
        }
    }()
}
