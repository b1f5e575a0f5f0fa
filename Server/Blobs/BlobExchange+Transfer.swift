import EaselHTTP
import EaselModel
import EaselProtocol
import EaselStore
import EaselSync

/// An exchange's body, its port answers, and its writing.
extension BlobExchange {
    // MARK: Uploads

    func body(_ bytes: some Collection<UInt8>) -> [Action] {
        if refusalAfterBody != nil {
            drained += Int64(bytes.count)
            return drained > drainLimit ? [.closeNow] : []
        }
        guard var upload, !upload.ended else { return [] }
        let taken = upload.take(bytes, limit: limits.maxBytes)
        self.upload = upload
        guard let taken else {
            refusalAfterBody = Self.tooBig(limits)
            return [.progress] + abandon() + [.refused(status: 413)]
        }
        return [.progress] + taken
    }

    /// The whole body is in: the last chunk goes, the type is sniffed, and
    /// the port checks the hash against the name and makes it a blob.
    func bodyEnded() -> [Action] {
        if let refusal = refusalAfterBody {
            refusalAfterBody = nil
            answer(refusal)
            return [.write]
        }
        guard var upload, !upload.ended, let request else { return [] }
        let (actions, type) = upload.end()
        self.upload = upload
        guard let type else {
            return actions + abandon() + [.refused(status: 415)]
                + refuseUpload(
                    .text(415, "a blob must be a PNG, JPEG, GIF or WebP image (by its bytes)\n"), bodyLeft: false)
        }
        return actions + [.store(.finish(request.hash, size: upload.received, type: type, document: request.document))]
    }

    func abandon() -> [Action] {
        guard upload != nil else { return [] }
        upload?.ended = true
        return [.store(.abandon)]
    }

    // MARK: The port's answers

    func storage(_ answer: StorageAnswer) -> [Action] {
        switch answer {
        case .began:
            // A failed begin fails the chunks and the finish after it too;
            // one report is enough.
            return []
        case .chunkWritten(let result):
            guard var upload else { return [] }
            let resumes = upload.chunkWritten()
            self.upload = upload
            if case .failure(let failure) = result, !answered {
                return [.progress] + abandon() + internalFailure("storing the blob", failure, closing: true)
            }
            return resumes ? [.progress, .resumeReading] : [.progress]
        case .finished(let result):
            guard let request else { return [] }
            switch result {
            case .success(.wrongHash(let digest)):
                self.answer(.text(400, "the bytes hash to \(digest), not \(request.hash): nothing was stored\n"))
                return [.refused(status: 400), .write]
            case .success(let finish):
                let created = finish == .created
                self.answer(
                    .text(
                        created ? 201 : 200, created ? "stored\n" : "already stored\n",
                        headers: [.init("etag", entityTag)]))
                return [.stored(created: created), .write]
            case .failure(let failure):
                return internalFailure("storing the blob", failure, closing: true)
            }
        case .located(let result):
            guard let request else { return [] }
            switch result {
            case .failure(let failure):
                return internalFailure("reading the blob", failure, closing: false)
            case .success(nil):
                self.answer(.text(404, "no blob \(request.hash) was uploaded to \(request.document)\n"))
                return [.write]
            case .success(let blob?):
                return startDownload(blob)
            }
        case .chunkRead(let result):
            guard var download else { return [] }
            if case .success(let chunk?) = result {
                download.nextChunk += 1
                self.download = download
                parts.append(.body(chunk, final: download.nextChunk == download.blob.chunks))
            } else {
                // Headers are out: all that is left is to cut the connection.
                parts = [.end]
                closesAfterAnswer = true
            }
            return [.write]
        }
    }

    /// A 500 that tells the client only an incident number; what failed
    /// goes to the log under that number.
    func internalFailure(_ what: String, _ failure: StorageFailure, closing: Bool) -> [Action] {
        let incident = incidents()
        answer(.text(500, "\(what) failed (incident \(incident))\n"), closing: closing)
        return [.failed(what: what, failure: failure, incident: incident), .write]
    }

    var entityTag: String { "\"\(request.map { "\($0.hash)" } ?? "")\"" }

    func startDownload(_ blob: StoredBlob) -> [Action] {
        let tag = entityTag
        let headers: [HTTPResponse.Header] = [
            .init("etag", tag), .init("cache-control", "private, max-age=31536000, immutable"),
            .init("x-content-type-options", "nosniff"),
        ]
        answered = true
        let matches = head.ifNoneMatch.map { list in
            list.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == tag }
        }
        if matches == true {
            let notModified = HTTPResponse(status: 304, contentType: blob.type.mediaType, headers: headers, body: [])
            parts = [.headers(notModified, length: 0), .end]
            return [.write]
        }
        let found = HTTPResponse(status: 200, contentType: blob.type.mediaType, headers: headers, body: [])
        parts.append(.headers(found, length: Int(blob.size)))
        if headOnly || blob.chunks == 0 {
            parts.append(.end)
            return [.write]
        }
        download = (blob, 0)
        return [.write, .store(.read(sequence: 0, of: blob))]
    }

    // MARK: Writing

    /// Queues a whole answer; a HEAD request's is its headers alone (RFC
    /// 9110 9.3.2), with the length a GET's body would have.
    func answer(_ response: HTTPResponse, closing: Bool = false) {
        answered = true
        closesAfterAnswer = closesAfterAnswer || closing
        parts.append(.headers(response, length: response.body.count))
        parts.append(response.body.isEmpty || headOnly ? .end : .body(response.body, final: true))
    }

    /// The part to write next, left queued until `wrote()`.
    var nextPart: Part? { parts.first }

    /// The next part is written: the next chunk of a download is fetched,
    /// and after the last part the exchange is over.
    func wrote() -> [Action] {
        guard !parts.isEmpty else { return [] }
        let part = parts.removeFirst()
        var actions: [Action] = [.progress]
        switch part {
        case .headers:
            break
        case .body(_, final: false):
            if let download, download.nextChunk < download.blob.chunks {
                actions.append(.store(.read(sequence: download.nextChunk, of: download.blob)))
            }
        case .body(_, final: true), .end:
            isOver = true
            if closesAfterAnswer { actions.append(.closeNow) }
        }
        if !parts.isEmpty { actions.append(.write) }
        return actions
    }

    /// The connection closed, or took another request: an upload still
    /// open is dropped.
    func connectionEnded() -> [Action] {
        isOver = true
        guard let upload, !upload.ended else { return [] }
        return abandon()
    }
}
