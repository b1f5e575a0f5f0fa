import CLibWebSockets
import Crypto
import EaselModel
import EaselStore
import EaselSync
import Foundation
import Logging

/// Blobs over HTTP on the server's port (Protocol/README.md, "Blobs over
/// HTTP"). The service thread parses, authorizes, hashes and sniffs; the
/// blob thread (`BlobWorker`) does every database step, so the service
/// thread never waits. An upload is read a chunk at a time and paused while
/// the blob thread is behind, so memory stays bounded however many upload
/// at once; a download holds one chunk at a time.
extension ServiceHost {
    /// Chunks of one upload the blob thread may have queued before reading
    /// pauses.
    static let uploadChunksAhead = 4

    func startBlobExchange(_ wsi: OpaquePointer, path: String) -> Int32 {
        if let earlier = exchanges[wsi] { endExchange(earlier) }
        let method = easel_lws_http_method(wsi)
        let document = header(wsi) { easel_lws_query(wsi, "doc=", $0, $1) }
        let request: BlobRequest
        switch BlobRequest.parse(path: path, method: method, document: document) {
        case .refused(let response):
            logRefusedBlob(response.status, nil)
            return respondImmediately(wsi, response, afterBody: method == 3)
        case .request(let parsed): request = parsed
        }
        let bearer = BlobRequest.bearer(from: header(wsi) { easel_lws_header(wsi, easel_lws_token_authorization, $0, $1) })
        if let refusal = request.refusal(bearer: bearer, authenticate: authenticate, at: clock.now) {
            logRefusedBlob(refusal.status, request)
            return respondImmediately(wsi, refusal, afterBody: request.method == .put)
        }
        let exchange = BlobExchange(number: nextExchange, wsi: wsi, request: request, headOnly: method == 2)
        madeProgress(exchange)
        nextExchange += 1
        exchanges[wsi] = exchange
        exchangesByNumber[exchange.number] = exchange
        exchange.ifNoneMatch = header(wsi) { easel_lws_if_none_match(wsi, $0, $1) }
        switch request.method {
        case .get, .head:
            let hash = request.hash
            let document = request.document.rawValue
            let number = exchange.number
            blobs.run({ store in try store.blobLocation(hash, document: document) }) { [weak self] result in
                self?.post(.found(result), for: number)
            }
        case .put:
            let declared = header(wsi) { easel_lws_header(wsi, easel_lws_token_content_length, $0, $1) }
                .flatMap { Int64($0) }
            guard let declared else {
                // A body without a length (chunked) cannot be read to its
                // end here: it would hold an upload's place until it idled.
                logRefusedBlob(411, request)
                exchange.answer(.text(411, "an upload must say its size: Content-Length\n"), closing: true)
                lws_callback_on_writable(wsi)
                return 0
            }
            if declared > blobLimits.maxBytes {
                return refuseUpload(exchange, .text(413, "a blob has at most \(blobLimits.maxBytes) bytes here\n"))
            }
            let uploading = exchanges.values.filter { $0.upload.map { !$0.ended } ?? false }.count
            guard uploading < blobLimits.maxUploads else {
                return refuseUpload(
                    exchange,
                    .text(503, "\(uploading) uploads are in flight, the most this server takes; try again soon\n",
                        headers: [.init("retry-after", "1")]))
            }
            let progress = UploadProgress()
            exchange.upload = progress
            let ticket = progress.ticket
            let number = exchange.number
            let now = clock.now.rawValue
            blobs.run({ store in ticket.id = try store.beginUpload(at: now) }) { [weak self] result in
                // A failed begin fails the chunk after it too; one report is enough.
                if case .failure(let error) = result { self?.post(.chunkWritten(error), for: number) }
            }
            if declared == 0 { endOfBody(exchange) }
        }
        return 0
    }

    /// Reads a request header through the shim into a string.
    func header(_ wsi: OpaquePointer, _ read: (UnsafeMutablePointer<CChar>, Int32) -> Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = buffer.withUnsafeMutableBufferPointer { read($0.baseAddress!, Int32($0.count)) }
        guard length >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A whole answer to any request, decided at once (health, metrics, the
    /// site): after the request's body, read and dropped, when it declared
    /// one, so a client that sends a body where none is wanted still gets
    /// the answer whole.
    func answerWhole(_ wsi: OpaquePointer, _ response: HTTPResponse) -> Int32 {
        if let earlier = exchanges[wsi] { endExchange(earlier) }
        let declared = header(wsi) { easel_lws_header(wsi, easel_lws_token_content_length, $0, $1) }
            .flatMap { Int64($0) }
        return respondImmediately(wsi, response, afterBody: (declared ?? 0) > 0)
    }

    /// An answer decided before the request was understood or allowed (a
    /// bad path, a refused token): at once, or for an upload once its body
    /// has been read and dropped.
    private func respondImmediately(_ wsi: OpaquePointer, _ response: HTTPResponse, afterBody: Bool) -> Int32 {
        let exchange = BlobExchange(number: nextExchange, wsi: wsi, request: nil, headOnly: easel_lws_http_method(wsi) == 2)
        nextExchange += 1
        exchanges[wsi] = exchange
        exchangesByNumber[exchange.number] = exchange
        if afterBody {
            return refuseUpload(exchange, response)
        }
        exchange.answer(response)
        lws_callback_on_writable(wsi)
        return 0
    }

    /// How much of a refused body is read and dropped before the connection
    /// is simply closed.
    var drainLimit: Int64 { max(2 * blobLimits.maxBytes, 16 << 20) }

    /// Refuses an upload: the rest of its body is read and dropped and the
    /// answer goes at its end (at once when there is no body left, or when
    /// it declares more than the drain limit, then closing).
    private func refuseUpload(_ exchange: BlobExchange, _ response: HTTPResponse, bodyLeft: Bool = true) -> Int32 {
        if exchange.request != nil { logRefusedBlob(response.status, exchange.request) }
        exchange.upload?.ended = true
        let declared = header(exchange.wsi) { easel_lws_header(exchange.wsi, easel_lws_token_content_length, $0, $1) }
            .flatMap { Int64($0) }
        if bodyLeft, declared != 0, (declared ?? 0) <= drainLimit {
            exchange.refusalAfterBody = response
            return 0
        }
        exchange.answer(response, closing: bodyLeft && declared != 0)
        lws_callback_on_writable(exchange.wsi)
        return 0
    }

    // MARK: Uploads

    func receiveBody(_ bytes: UnsafeRawBufferPointer, of exchange: BlobExchange) -> Int32 {
        if exchange.refusalAfterBody != nil {
            exchange.drained += Int64(bytes.count)
            return exchange.drained > drainLimit ? -1 : 0
        }
        guard let upload = exchange.upload, !upload.ended else { return 0 }
        madeProgress(exchange)
        upload.received += Int64(bytes.count)
        guard upload.received <= blobLimits.maxBytes else {
            abandon(exchange)
            exchange.refusalAfterBody = .text(413, "a blob has at most \(blobLimits.maxBytes) bytes here\n")
            return 0
        }
        if upload.head.count < BlobType.sniffLength {
            upload.head += bytes.prefix(BlobType.sniffLength - upload.head.count)
        }
        upload.pending.append(contentsOf: bytes)
        while upload.pending.count >= BlobStore.chunkLimit {
            writeChunk(Array(upload.pending.prefix(BlobStore.chunkLimit)), of: exchange)
            upload.pending.removeFirst(BlobStore.chunkLimit)
        }
        if upload.inFlight >= Self.uploadChunksAhead, !upload.paused {
            upload.paused = true
            easel_lws_read_flow(exchange.wsi, 0)
        }
        return 0
    }

    /// The transfer moved: it has `idleSeconds` more to move again.
    private func madeProgress(_ exchange: BlobExchange) {
        easel_lws_http_progress(exchange.wsi, Int32(blobLimits.idleSeconds))
    }

    private func writeChunk(_ chunk: [UInt8], of exchange: BlobExchange) {
        guard let upload = exchange.upload else { return }
        let sequence = upload.nextSequence
        upload.nextSequence += 1
        upload.inFlight += 1
        let ticket = upload.ticket
        let number = exchange.number
        blobs.run({ store in
            guard let id = ticket.id else { throw StoreError(.closed, "the upload never began") }
            ticket.hasher.update(data: chunk)
            try store.appendChunk(chunk, to: id, sequence: sequence)
        }) { [weak self] result in
            if case .failure(let error) = result {
                self?.post(.chunkWritten(error), for: number)
            } else {
                self?.post(.chunkWritten(nil), for: number)
            }
        }
    }

    /// The whole body is in: the last chunk goes, the hash is checked
    /// against the name and the type sniffed, and the blob thread makes it
    /// a blob.
    func endOfBody(_ exchange: BlobExchange) {
        if let refusal = exchange.refusalAfterBody {
            exchange.refusalAfterBody = nil
            exchange.answer(refusal)
            lws_callback_on_writable(exchange.wsi)
            return
        }
        guard let upload = exchange.upload, !upload.ended else { return }
        if !upload.pending.isEmpty {
            writeChunk(upload.pending, of: exchange)
            upload.pending = []
        }
        guard exchange.request != nil, let type = BlobType(sniffing: upload.head) else {
            abandon(exchange)
            _ = refuseUpload(
                exchange, .text(415, "a blob must be a PNG, JPEG, GIF or WebP image (by its bytes)\n"), bodyLeft: false)
            return
        }
        upload.ended = true
        let ticket = upload.ticket
        let size = upload.received
        guard let request = exchange.request else { return }
        let hash = request.hash
        let document = request.document.rawValue
        let number = exchange.number
        let durably = blobs.durability == .full
        let clock = clock
        blobs.run({ store -> BlobStored in
            guard let id = ticket.id else { throw StoreError(.closed, "the upload never began") }
            let digest = BlobHash(bytes: Array(ticket.hasher.finalize()))
            guard digest == hash else {
                try store.abandonUpload(id)
                throw WrongHash(description: "the bytes hash to \(digest), not \(hash): nothing was stored")
            }
            let finish = {
                try store.finishUpload(id, as: hash, size: size, type: type, document: document, at: clock.now.rawValue)
            }
            return try durably ? store.syncingFully(finish) : finish()
        }) { [weak self] result in
            self?.post(.stored(result), for: number)
        }
    }

    private func abandon(_ exchange: BlobExchange) {
        guard let upload = exchange.upload else { return }
        upload.ended = true
        let ticket = upload.ticket
        blobs.run({ store in if let id = ticket.id { try store.abandonUpload(id) } }) { _ in }
    }

    // MARK: The blob thread's answers

    /// A 500 that tells the client only an incident number; what failed
    /// (SQL, file, the store's code) goes to the log under that number.
    private func internalFailure(_ what: String, _ error: any Error) -> HTTPResponse {
        let incident = Incident.next()
        log.logger.error("\(what) failed", metadata: ["incident": "\(incident)", "detail": "\(error)"])
        return .text(500, "\(what) failed (incident \(incident))\n")
    }

    private func logRefusedBlob(_ status: UInt32, _ request: BlobRequest?) {
        var metadata: Logger.Metadata = ["status": "\(status)"]
        if let request {
            metadata["blob"] = "\(request.hash.hex)"
            metadata["document"] = "\(request.document)"
        }
        log.logger.notice("blob refused", metadata: metadata)
    }

    private func post(_ event: BlobEvent, for number: UInt64) {
        if inbox.add(.blob(number, event)) { wake() }
    }

    func blobEvent(_ event: BlobEvent, for number: UInt64) {
        guard let exchange = exchangesByNumber[number] else {
            return
        }
        switch event {
        case .chunkWritten(let error):
            guard let upload = exchange.upload else { return }
            upload.inFlight -= 1
            madeProgress(exchange)
            if let error, !exchange.answered {
                abandon(exchange)
                exchange.answer(internalFailure("storing the blob", error), closing: true)
                lws_callback_on_writable(exchange.wsi)
            } else if upload.paused, upload.inFlight < Self.uploadChunksAhead / 2 {
                upload.paused = false
                easel_lws_read_flow(exchange.wsi, 1)
            }
        case .stored(let result):
            switch result {
            case .success(let stored):
                let created = stored == .created
                log.logger.info(
                    "blob stored",
                    metadata: [
                        "blob": "\(exchange.request.map { $0.hash.hex } ?? "")",
                        "document": "\(exchange.request.map { $0.document.rawValue } ?? "")", "new": "\(created)",
                    ])
                exchange.answer(
                    .text(
                        created ? 201 : 200, created ? "stored\n" : "already stored\n",
                        headers: [.init("etag", exchange.entityTag)]))
            case .failure(let error as WrongHash):
                logRefusedBlob(400, exchange.request)
                exchange.answer(.text(400, error.description + "\n"))
            case .failure(let error):
                exchange.answer(internalFailure("storing the blob", error), closing: true)
            }
            lws_callback_on_writable(exchange.wsi)
        case .found(let result):
            switch result {
            case .failure(let error):
                exchange.answer(internalFailure("reading the blob", error))
            case .success(nil):
                let name = exchange.request.map { "\($0.hash) was uploaded to \($0.document)" } ?? "here"
                exchange.answer(.text(404, "no blob \(name)\n"))
            case .success(let location?):
                startDownload(exchange, location)
            }
            lws_callback_on_writable(exchange.wsi)
        case .chunkRead(let result):
            guard var download = exchange.download else { return }
            switch result {
            case .success(let chunk?):
                download.nextChunk += 1
                exchange.download = download
                exchange.parts.append(.body(chunk, final: download.nextChunk == download.location.chunks))
                lws_callback_on_writable(exchange.wsi)
            case .success(nil), .failure:
                // Headers are out: all that is left is to cut the connection.
                exchange.parts = []
                exchange.closeAfterAnswer = true
                exchange.parts.append(.end)
                lws_callback_on_writable(exchange.wsi)
            }
        }
    }

    private func startDownload(_ exchange: BlobExchange, _ location: BlobLocation) {
        let tag = exchange.entityTag
        let headers: [HTTPResponse.Header] = [
            .init("etag", tag), .init("cache-control", "private, max-age=31536000, immutable"),
            .init("x-content-type-options", "nosniff"),
        ]
        exchange.answered = true
        if let match = exchange.ifNoneMatch, match.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == tag
        }) {
            let notModified = HTTPResponse(
                status: 304, contentType: location.info.type.mediaType, headers: headers, body: [])
            exchange.parts = [.headers(notModified, length: 0), .end]
            return
        }
        let response = HTTPResponse(
            status: 200, contentType: location.info.type.mediaType, headers: headers, body: [])
        exchange.parts.append(.headers(response, length: Int(location.info.size)))
        if exchange.request?.method == .head || location.chunks == 0 {
            exchange.parts.append(.end)
            return
        }
        exchange.download = DownloadProgress(location: location)
        readNextChunk(of: exchange)
    }

    private func readNextChunk(of exchange: BlobExchange) {
        guard let download = exchange.download, download.nextChunk < download.location.chunks else { return }
        let upload = download.location.upload
        let sequence = download.nextChunk
        let number = exchange.number
        blobs.run({ store in try store.chunk(sequence, of: upload) }) { [weak self] result in
            self?.post(.chunkRead(result), for: number)
        }
    }

    // MARK: Writing

    func writeNextPart(of exchange: BlobExchange) -> Int32 {
        guard !exchange.parts.isEmpty else { return 0 }
        madeProgress(exchange)
        let part = exchange.parts.removeFirst()
        let result: Int32
        switch part {
        case .headers(let response, let length):
            result = response.headerLines.withCString { extra in
                easel_lws_http_headers(exchange.wsi, response.status, response.contentType, length, extra)
            } == 0 ? 0 : -1
        case .body(let bytes, let final):
            var buffer = [UInt8](repeating: 0, count: easel_lws_pre) + bytes
            result = buffer.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return -1 }
                return easel_lws_http_part(exchange.wsi, base + easel_lws_pre, bytes.count, final ? 1 : 0)
            }
            // One chunk out: fetch the next (a download holds one at a time).
            if !final { readNextChunk(of: exchange) }
            if final {
                // The transaction is over: the connection may carry another.
                endExchange(exchange)
                if exchange.closeAfterAnswer { return -1 }
            }
        case .end:
            endExchange(exchange)
            if exchange.closeAfterAnswer { return -1 }
            result = easel_lws_http_done(exchange.wsi)
        }
        if result != 0 { return -1 }
        if !exchange.parts.isEmpty { lws_callback_on_writable(exchange.wsi) }
        return 0
    }

    /// The connection's exchange is over (closed, or a new request on it).
    func endExchange(_ exchange: BlobExchange) {
        if let upload = exchange.upload, !upload.ended { abandon(exchange) }
        exchanges[exchange.wsi] = nil
        exchangesByNumber[exchange.number] = nil
    }
}

/// Bytes that do not hash to the blob's name (400).
struct WrongHash: Error, CustomStringConvertible {
    var description: String
}
