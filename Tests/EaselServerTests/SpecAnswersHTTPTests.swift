import Crypto
import Foundation
import Testing

/// Questions an outside implementer found the spec left open about HTTP on
/// the server's port (Protocol/README.md, sections 1 and 10), each settled
/// by what a real `easel serve` answers, and pinned here with requests
/// written byte by byte (Tests/OutsideClients' raw-http) or by Python's
/// http.client (its blob mode).
@Suite("Spec answers: HTTP on the server's port", .serialized)
final class SpecAnswersHTTPTests {
    static let secret = "a secret for the spec-answer tests, long enough"
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easel-spec-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The folder goes with the test: its files (blobs of up to 10 MiB
    /// each, databases) would otherwise fill the disk run after run.
    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    func server(_ arguments: [String] = [], secret: Bool = false) throws -> ServerProcess {
        try ServerProcess(
            database: folder.appendingPathComponent("easel-\(UUID().uuidString).db").path, arguments: arguments,
            environment: secret ? ["EASEL_SECRET": Self.secret] : [:])
    }

    /// Bytes in a file of the test's folder, and their SHA-256 in hex.
    func file(_ bytes: [UInt8]) throws -> (path: String, hash: String) {
        let hash = SHA256.hash(data: Data(bytes)).map { String(format: "%02x", $0) }.joined()
        let url = folder.appendingPathComponent("\(hash).bin")
        try Data(bytes).write(to: url)
        return (url.path, hash)
    }

    /// A request sent as these bytes; the whole answer, as text (empty when
    /// the server sent nothing before it closed or went quiet for 3 s).
    func answer(_ server: ServerProcess, _ request: String, body: [UInt8] = []) throws -> String {
        let hex = (Array(request.utf8) + body).map { String(format: "%02x", $0) }.joined()
        return try OutsideClient.run(["\(server.port)", "raw-http", hex])["answer"] as? String ?? ""
    }

    /// The same, in the background, for a request the server may never answer.
    func answerInBackground(_ server: ServerProcess, _ request: String, body: [UInt8] = []) throws -> OutsideClient {
        let hex = (Array(request.utf8) + body).map { String(format: "%02x", $0) }.joined()
        return try OutsideClient(["\(server.port)", "raw-http", hex])
    }

    /// The status code of an answer's status line.
    func status(_ answer: String) -> Int? {
        answer.split(separator: "\r\n", maxSplits: 1).first.flatMap { line in
            line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
    }

    /// One blob request through Python's http.client: status and headers.
    func blob(_ server: ServerProcess, _ method: String, _ path: String, body: String = "-") throws -> [String: Any] {
        try OutsideClient.run(["\(server.port)", "blob", method, path, body, "-", "-"])
    }

    // MARK: Question 8: which methods /healthz and /metrics answer (section 1)

    @Test("/healthz and /metrics answer GET, HEAD, POST, PUT, DELETE, OPTIONS and PATCH alike, HEAD with the headers alone")
    func healthAndMetricsAnswerEveryParsedMethod() throws {
        let server = try server()
        defer { server.kill() }
        for method in ["GET", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"] {
            let health = try answer(server, "\(method) /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(status(health) == 200, "\(method) /healthz: \(health)")
            #expect(health.hasSuffix("\r\n\r\nserving\n"), "\(method) /healthz: \(health)")
            let metrics = try answer(server, "\(method) /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(status(metrics) == 200, "\(method) /metrics")
            #expect(metrics.contains("text/plain; version=0.0.4") && metrics.contains("easel_connections"), "\(method)")
        }
        // HEAD: the headers a GET would get, its Content-Length included, and no body (RFC 9110 9.3.2).
        for path in ["/healthz", "/metrics", "/no/such/page", "/blobs/nothing"] {
            let head = try answer(server, "HEAD \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(head.hasSuffix("\r\n\r\n"), "HEAD \(path): \(head)")
            let get = try answer(server, "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(status(head) == status(get), "HEAD \(path)")
            let length = { (text: String) in
                text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            }
            #expect(length(head) != nil && length(head) == length(get), "HEAD \(path): \(head)")
        }
    }

    @Test("a method libwebsockets does not parse (TRACE, PROPFIND) gets its own 403, on /healthz, /metrics and /blobs/ alike")
    func unparsedMethodsGetLibwebsocketsForbidden() throws {
        let server = try server()
        defer { server.kill() }
        let blob = "/blobs/\(String(repeating: "ab", count: 32))?doc=pics"
        for method in ["TRACE", "PROPFIND"] {
            for path in ["/healthz", "/metrics", blob] {
                let refused = try answer(server, "\(method) \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(status(refused) == 403, "\(method) \(path): \(refused)")
            }
        }
    }

    // MARK: Question 9: blobs (section 10)

    @Test("a download with no ?doc= or a bad one is 400: after the path's 404 and the method's 405, before the token's 401")
    func aDownloadWithoutADocumentIs400() throws {
        let server = try server(secret: true)
        defer { server.kill() }
        let name = String(repeating: "ab", count: 32)
        #expect(try status(answer(server, "GET /blobs/\(name) HTTP/1.1\r\nHost: x\r\n\r\n")) == 400, "no ?doc=")
        #expect(try status(answer(server, "GET /blobs/\(name)?doc=../x HTTP/1.1\r\nHost: x\r\n\r\n")) == 400, "bad name")
        #expect(try status(answer(server, "HEAD /blobs/\(name)?doc= HTTP/1.1\r\nHost: x\r\n\r\n")) == 400, "empty name")
        #expect(try status(answer(server, "GET /blobs/xyz HTTP/1.1\r\nHost: x\r\n\r\n")) == 404, "bad path first")
        #expect(try status(answer(server, "DELETE /blobs/xyz HTTP/1.1\r\nHost: x\r\n\r\n")) == 405, "method first")
        #expect(try status(answer(server, "GET /blobs/\(name)?doc=pics HTTP/1.1\r\nHost: x\r\n\r\n")) == 401, "then the token")
    }

    @Test("an upload's refusals come in order: 405 method, 404 path, 400 document, 401 token, then 413 by Content-Length")
    func anUploadsRefusalsComeInOrder() throws {
        let server = try server(["--max-blob-bytes", "1000"], secret: true)
        defer { server.kill() }
        let name = String(repeating: "cd", count: 32)
        // Declared beyond what the server drains, so it answers at once and closes.
        let tooBig = "Content-Length: 30000000\r\n\r\n"
        let cases: [(String, Int)] = [
            ("POST /blobs/xyz HTTP/1.1\r\nHost: x\r\n\(tooBig)", 405),
            ("PUT /blobs/xyz HTTP/1.1\r\nHost: x\r\n\(tooBig)", 404),
            ("PUT /blobs/\(name) HTTP/1.1\r\nHost: x\r\n\(tooBig)", 400),
            ("PUT /blobs/\(name)?doc=pics HTTP/1.1\r\nHost: x\r\n\(tooBig)", 401),
            ("PUT /blobs/\(name)?doc=pics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer easel1.nope\r\n\(tooBig)", 401),
        ]
        for (request, expected) in cases {
            let refused = try answer(server, request)
            #expect(status(refused) == expected, "\(request.prefix(40)): \(refused)")
        }
        let unauthorized = try answer(server, "PUT /blobs/\(name)?doc=pics HTTP/1.1\r\nHost: x\r\n\(tooBig)")
        #expect(unauthorized.lowercased().contains("www-authenticate: bearer"))
    }

    @Test("413 by Content-Length comes before 503; a PUT is in flight from its accepted headers until its body is in")
    func tooBigComesBeforeBusy() throws {
        let server = try server(["--max-uploads", "1"])
        defer { server.kill() }
        let slow = try file(Self.pngSignature + [UInt8](repeating: 7, count: 8 << 20))
        let small = try file(Self.pngSignature + [UInt8](repeating: 8, count: 100))
        let uploading = try OutsideClient(["\(server.port)", "slow-put", "/blobs/\(slow.hash)?doc=pics", slow.path])
        #expect(try uploading.nextLine()["sent"] != nil)
        let tooBig = try answer(
            server, "PUT /blobs/\(small.hash)?doc=pics HTTP/1.1\r\nHost: x\r\nContent-Length: 30000000\r\n\r\n")
        #expect(status(tooBig) == 413, "\(tooBig)")
        let busy = try blob(server, "PUT", "/blobs/\(small.hash)?doc=pics", body: small.path)
        #expect(busy["status"] as? Int == 503)
        #expect((busy["headers"] as? [String: String])?["retry-after"] == "1")
        #expect(try blob(server, "GET", "/blobs/\(small.hash)?doc=pics")["status"] as? Int == 404, "downloads are not uploads")
        #expect(try uploading.finish()["status"] as? Int == 201)
        #expect(try blob(server, "PUT", "/blobs/\(small.hash)?doc=pics", body: small.path)["status"] as? Int == 201)
    }

    @Test("an upload without Content-Length gets 411 at once, holds no upload slot, and stores nothing")
    func anUploadWithoutContentLengthIs411() throws {
        let server = try server(["--max-uploads", "1", "--blob-idle-seconds", "10"])
        defer { server.kill() }
        let unsized = try file(Self.pngSignature + [UInt8](repeating: 9, count: 100))
        let other = try file(Self.pngSignature + [UInt8](repeating: 10, count: 100))
        let refused = try answer(
            server, "PUT /blobs/\(unsized.hash)?doc=pics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
            body: Array("8\r\n".utf8) + Self.pngSignature + Array("\r\n0\r\n\r\n".utf8))
        #expect(status(refused) == 411 && refused.contains("Content-Length"), "\(refused)")
        #expect(try blob(server, "PUT", "/blobs/\(other.hash)?doc=pics", body: other.path)["status"] as? Int == 201)
        #expect(try blob(server, "GET", "/blobs/\(unsized.hash)?doc=pics")["status"] as? Int == 404)
    }

    @Test("the type is sniffed from the first bytes: PNG, JPEG, GIF87a, GIF89a and RIFF…WEBP are served as such")
    func signaturesAreSniffed() throws {
        let server = try server()
        defer { server.kill() }
        let filler = [UInt8](repeating: 0x41, count: 32)
        let images: [([UInt8], String)] = [
            (Self.pngSignature, "image/png"),
            ([0xFF, 0xD8, 0xFF], "image/jpeg"),
            (Array("GIF87a".utf8), "image/gif"),
            (Array("GIF89a".utf8), "image/gif"),
            (Array("RIFF".utf8) + [0x01, 0x02, 0x03, 0x04] + Array("WEBP".utf8), "image/webp"),
        ]
        for (signature, type) in images {
            let image = try file(signature + filler)
            #expect(try blob(server, "PUT", "/blobs/\(image.hash)?doc=pics", body: image.path)["status"] as? Int == 201)
            let fetched = try blob(server, "GET", "/blobs/\(image.hash)?doc=pics")
            #expect((fetched["headers"] as? [String: String])?["content-type"] == type, "\(type)")
        }
    }

    @Test("near misses of a signature, a body shorter than one, and an empty body are 415")
    func nearMissesAreRefused() throws {
        let server = try server()
        defer { server.kill() }
        let filler = [UInt8](repeating: 0x41, count: 32)
        let refused: [[UInt8]] = [
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0B] + filler,
            [0xFF, 0xD8, 0x00] + filler,
            Array("GIF88a".utf8) + filler,
            Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBX".utf8) + filler,
            Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEB".utf8),
            Array(#"<svg xmlns="http://www.w3.org/2000/svg"/>"#.utf8),
            [],
        ]
        for bytes in refused {
            let upload = try file(bytes)
            let outcome = try blob(server, "PUT", "/blobs/\(upload.hash)?doc=pics", body: upload.path)
            #expect(outcome["status"] as? Int == 415, "\(bytes.prefix(12))")
        }
    }

    @Test("bytes that are not an image and do not hash to the name are 415, not 400: the type is judged first")
    func theTypeIsJudgedBeforeTheHash() throws {
        let server = try server()
        defer { server.kill() }
        let text = try file(Array("hello, world".utf8))
        let picture = try file(Self.pngSignature + [UInt8](repeating: 11, count: 100))
        #expect(try blob(server, "PUT", "/blobs/\(picture.hash)?doc=pics", body: text.path)["status"] as? Int == 415)
        #expect(try blob(server, "PUT", "/blobs/\(text.hash)?doc=pics", body: picture.path)["status"] as? Int == 400)
    }
}
