import Crypto
import EaselModel
import EaselStore

/// One HTTP request on a blob, from its headers to its last byte out: what
/// it asked, what is still to be written, and an upload's or a download's
/// progress. Touched only on the service thread.
final class BlobExchange {
    let number: UInt64
    let wsi: OpaquePointer
    /// Nil for an answer decided before the request was understood.
    let request: BlobRequest?
    /// What is left to write, in order; empty while waiting on the blob thread.
    var parts: [Part] = []
    /// Close the connection once the answer is out (a refused upload's
    /// body was never read).
    var closeAfterAnswer = false
    var answered = false
    var upload: UploadProgress?
    var download: DownloadProgress?
    /// The request's If-None-Match, read while its headers are at hand.
    var ifNoneMatch: String?
    /// An upload refused before its body was read: the body is read and
    /// dropped, and this answers it at the end, so the client (which sends
    /// its whole body before it reads) sees the answer, not a broken pipe.
    var refusalAfterBody: HTTPResponse?
    /// Bytes of a refused body dropped so far.
    var drained: Int64 = 0

    enum Part {
        /// Status line and headers; `length` is the body's, written after.
        case headers(HTTPResponse, length: Int)
        case body([UInt8], final: Bool)
        /// Ends an answer that has no body (HEAD, 304).
        case end
    }

    /// A HEAD request: every answer is its headers alone (RFC 9110 9.3.2),
    /// with the length a GET's body would have.
    let headOnly: Bool

    init(number: UInt64, wsi: OpaquePointer, request: BlobRequest?, headOnly: Bool) {
        self.number = number
        self.wsi = wsi
        self.request = request
        self.headOnly = headOnly
    }

    /// Queues a whole answer.
    func answer(_ response: HTTPResponse, closing: Bool = false) {
        answered = true
        closeAfterAnswer = closeAfterAnswer || closing
        parts.append(.headers(response, length: response.body.count))
        parts.append(response.body.isEmpty || headOnly ? .end : .body(response.body, final: true))
    }

    var entityTag: String { "\"\(request.map { "\($0.hash)" } ?? "")\"" }
}

/// An upload's bytes on their way in: hashed and sniffed as they arrive,
/// handed to the blob thread a chunk at a time.
final class UploadProgress {
    let ticket = UploadTicket()
    var pending: [UInt8] = []
    /// The first bytes, for sniffing the type.
    var head: [UInt8] = []
    var received: Int64 = 0
    var nextSequence = 0
    /// Chunks handed to the blob thread and not yet written.
    var inFlight = 0
    var paused = false
    /// Stored, refused or failed: nothing more to do.
    var ended = false
}

/// The upload's ID in the store and the hash of its bytes so far, set and
/// read only on the blob thread, whose queue runs an upload's steps in
/// order: hashing there keeps 10 MiB of SHA-256 off the service thread.
final class UploadTicket: @unchecked Sendable {
    var id: UploadID?
    var hasher = SHA256()
}

/// A download streaming out a chunk at a time.
struct DownloadProgress {
    var location: BlobLocation
    var nextChunk = 0
}

/// What the blob thread tells the service thread about an exchange.
/// Unchecked: its store results cross once, from the blob thread to the service thread.
enum BlobEvent: @unchecked Sendable {
    case chunkWritten((any Error)?)
    case stored(Result<BlobStored, any Error>)
    case found(Result<BlobLocation?, any Error>)
    case chunkRead(Result<[UInt8]?, any Error>)
}
