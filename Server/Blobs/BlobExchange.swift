import EaselHTTP
import EaselModel
import EaselProtocol
import EaselStore
import EaselSync

/// One HTTP request on a blob (or an answer decided at once), from its
/// headers to its last byte out, as a state machine: it takes what the
/// socket and the blob port tell it and returns what to do, so every case
/// is tested without a socket (`BlobExchangeTests`). `HTTPExchanges`
/// carries the actions out. Touched only on the service thread.
///
/// An upload goes to the port a chunk at a time and reading pauses while
/// the port is `UploadFlow.chunksAhead` chunks behind, so memory stays bounded however
/// many upload at once; a download holds one chunk at a time.
final class BlobExchange {
    let number: UInt64
    let head: Head
    /// Nil for an answer decided before the request was understood.
    var request: BlobRequest?
    let limits: BlobLimits
    let incidents: () -> String
    // The state below is the exchange's own: only this file and
    // BlobExchange+Transfer.swift change it.

    /// What is left to write, in order; empty while waiting on the port.
    var parts: [Part] = []
    /// Close the connection once the answer is out.
    var closesAfterAnswer = false
    var answered = false
    var upload: UploadFlow?
    var download: (blob: StoredBlob, nextChunk: Int)?
    /// An upload refused before its body was read: the body is read and
    /// dropped, and this answers it at the end, so the client (which sends
    /// its whole body before it reads) sees the answer, not a broken pipe.
    var refusalAfterBody: HTTPResponse?
    var drained: Int64 = 0
    /// The last part is written, or the connection closed.
    var isOver = false

    init(number: UInt64, head: Head, limits: BlobLimits, incidents: @escaping () -> String) {
        self.number = number
        self.head = head
        self.limits = limits
        self.incidents = incidents
    }

    /// An upload whose body is still being read.
    var isUploading: Bool { upload.map { !$0.ended } ?? false }

    var handle: UploadHandle { UploadHandle(rawValue: number) }

    /// How much of a refused body is read and dropped before the connection
    /// is simply closed.
    var drainLimit: Int64 { max(2 * limits.maxBytes, 16 << 20) }

    var headOnly: Bool { head.method == 2 }

    // MARK: Starting

    /// A request under `/blobs/`: parsed, authorized, and begun.
    static func blob(
        number: UInt64, head: Head, limits: BlobLimits, uploadsInFlight: Int, authenticate: Authenticator,
        at now: Timestamp, incidents: @escaping () -> String = Incident.next
    ) -> (BlobExchange, [Action]) {
        let exchange = BlobExchange(number: number, head: head, limits: limits, incidents: incidents)
        return (exchange, exchange.begin(uploadsInFlight: uploadsInFlight, authenticate: authenticate, at: now))
    }

    /// A whole answer decided at once (health, metrics, the site): after
    /// the request's body, read and dropped, when it declared one.
    static func answering(_ response: HTTPResponse, number: UInt64, head: Head, limits: BlobLimits) -> (
        BlobExchange, [Action]
    ) {
        let exchange = BlobExchange(number: number, head: head, limits: limits, incidents: Incident.next)
        return (exchange, exchange.refuseUpload(response, bodyLeft: (head.contentLength ?? 0) > 0))
    }

    func begin(uploadsInFlight: Int, authenticate: Authenticator, at now: Timestamp) -> [Action] {
        let isPut = head.method == 3
        let request: BlobRequest
        switch BlobRequest.parse(path: head.path, method: head.method, document: head.document) {
        case .refused(let response):
            return [.refused(status: response.status)] + refuseUpload(response, bodyLeft: isPut)
        case .request(let parsed):
            request = parsed
        }
        self.request = request
        let bearer = BlobRequest.bearer(from: head.authorization)
        if let refusal = request.refusal(bearer: bearer, authenticate: authenticate, at: now) {
            return [.refused(status: refusal.status)] + refuseUpload(refusal, bodyLeft: isPut)
        }
        switch request.method {
        case .get, .head:
            return [.progress, .store(.locate(request.hash, request.document))]
        case .put:
            guard let declared = head.contentLength else {
                // A body without a length (chunked) cannot be read to its
                // end here: it would hold an upload's place until it idled.
                answer(.text(411, "an upload must say its size: Content-Length\n"), closing: true)
                return [.refused(status: 411), .write]
            }
            if declared > limits.maxBytes {
                return [.refused(status: 413)] + refuseUpload(Self.tooBig(limits))
            }
            guard uploadsInFlight < limits.maxUploads else {
                return [.refused(status: 503)]
                    + refuseUpload(
                        .text(
                            503, "\(uploadsInFlight) uploads are in flight, the most this server takes; try again soon\n",
                            headers: [.init("retry-after", "1")]))
            }
            upload = UploadFlow()
            var actions: [Action] = [.progress, .store(.begin)]
            if declared == 0 { actions += bodyEnded() }
            return actions
        }
    }

    static func tooBig(_ limits: BlobLimits) -> HTTPResponse {
        .text(413, "a blob has at most \(limits.maxBytes) bytes here\n")
    }

    /// Refuses: the rest of the body is read and dropped and the answer
    /// goes at its end (at once when there is no body left, or when it
    /// declares more than the drain limit, then closing).
    func refuseUpload(_ response: HTTPResponse, bodyLeft: Bool = true) -> [Action] {
        upload?.ended = true
        let declared = head.contentLength
        if bodyLeft, declared != 0, (declared ?? 0) <= drainLimit {
            refusalAfterBody = response
            return []
        }
        answer(response, closing: bodyLeft && declared != 0)
        return [.write]
    }
}
