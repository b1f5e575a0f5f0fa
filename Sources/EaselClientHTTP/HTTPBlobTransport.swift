import AsyncHTTPClient
import EaselClient
import EaselModel
import EaselProtocol
import NIOCore
import NIOHTTP1

/// A document's blobs on an Easel server, over AsyncHTTPClient:
/// `GET` and `PUT /blobs/<sha256>?doc=<document>`, with the token, when
/// there is one, in an `Authorization` header, never in the URL.
public struct HTTPBlobTransport: BlobTransport {
    /// `http://host:port`, the server's own port.
    public let server: String
    public let document: String
    public let token: String?
    public let client: HTTPClient
    /// The longest a request may take, start to end.
    public let timeout: TimeAmount
    /// The most bytes a download may bring: past it, the response is
    /// dropped (the server's own limit is 10 MiB unless set otherwise).
    public let maxBytes: Int

    public init(
        server: String, document: String, token: String? = nil, client: HTTPClient = .shared,
        timeout: TimeAmount = .seconds(60), maxBytes: Int = 64 << 20
    ) {
        self.server = server.hasSuffix("/") ? String(server.dropLast()) : server
        self.document = document
        self.token = token
        self.client = client
        self.timeout = timeout
        self.maxBytes = maxBytes
    }

    func request(_ method: HTTPMethod, _ blob: BlobHash) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: "\(server)/blobs/\(blob.hex)?doc=\(Self.queryEscaped(document))")
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        return request
    }

    public func download(
        _ blob: BlobHash, progress: @escaping @Sendable (BlobProgress) -> Void
    ) async throws(BlobTransferError) -> [UInt8] {
        do {
            let response = try await client.execute(request(.GET, blob), timeout: timeout)
            guard response.status == .ok else { throw await Self.failure(response) }
            let total = response.headers.first(name: "content-length").flatMap { Int($0) }
            if let total, total > maxBytes {
                throw BlobTransferError(.refused, status: 200, "the blob is \(total) bytes, past \(maxBytes)")
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(total ?? 0)
            for try await buffer in response.body {
                bytes.append(contentsOf: buffer.readableBytesView)
                guard bytes.count <= maxBytes else {
                    throw BlobTransferError(.refused, status: 200, "the blob runs past \(maxBytes) bytes")
                }
                progress(BlobProgress(bytes: bytes.count, total: total))
            }
            return bytes
        } catch {
            throw Self.transferError(error)
        }
    }

    public func upload(
        _ bytes: [UInt8], as blob: BlobHash, progress: @escaping @Sendable (BlobProgress) -> Void
    ) async throws(BlobTransferError) -> Bool {
        var request = request(.PUT, blob)
        request.body = .stream(UploadChunks(bytes: bytes, progress: progress), length: .known(Int64(bytes.count)))
        do {
            let response = try await client.execute(request, timeout: timeout)
            switch response.status {
            case .created, .ok:
                progress(BlobProgress(bytes: bytes.count, total: bytes.count))
                return response.status == .created
            default: throw await Self.failure(response)
            }
        } catch {
            throw Self.transferError(error)
        }
    }

    /// What a refusing response means, with the server's explanation.
    static func failure(_ response: HTTPClientResponse) async -> BlobTransferError {
        let explanation = (try? await response.body.collect(upTo: 4096)).map { String(buffer: $0) } ?? ""
        let message = explanation.isEmpty ? response.status.reasonPhrase : explanation
        let trimmed = message.hasSuffix("\n") ? String(message.dropLast()) : message
        let status = Int(response.status.code)
        return BlobTransferError(BlobFailure(httpStatus: status) ?? .refused, status: status, trimmed)
    }

    static func transferError(_ error: any Error) -> BlobTransferError {
        if let error = error as? BlobTransferError { return error }
        if error is CancellationError || (error as? HTTPClientError) == .cancelled {
            return BlobTransferError(.cancelled, "cancelled")
        }
        return BlobTransferError(.unavailable, "\(error)")
    }

    /// Percent-encodes all but RFC 3986's unreserved characters and `/`.
    static func queryEscaped(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".utf8)
                escaped += "%"
                escaped.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
                escaped.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 15)]))
            }
        }
        return escaped
    }
}

/// An upload's body in 256 KiB parts, reporting progress as AsyncHTTPClient
/// takes each one (it takes the next when the socket has room).
struct UploadChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let bytes: [UInt8]
    let progress: @Sendable (BlobProgress) -> Void
    static let partSize = 256 << 10

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: UploadChunks
        var offset = 0

        mutating func next() async -> ByteBuffer? {
            guard offset < chunks.bytes.count else { return nil }
            let end = Swift.min(offset + UploadChunks.partSize, chunks.bytes.count)
            let part = ByteBuffer(bytes: chunks.bytes[offset..<end])
            chunks.progress(BlobProgress(bytes: offset, total: chunks.bytes.count))
            offset = end
            return part
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
}
