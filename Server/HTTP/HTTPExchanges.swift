import CLibWebSockets
import EaselHTTP
import EaselModel
import EaselProtocol
import EaselSync
import Foundation
import Logging

/// The HTTP requests in progress on the server's port: blobs (Protocol/
/// README.md, section 10), and whole answers to the other paths (health,
/// metrics, the site). lws's callbacks become `BlobExchange` events, and
/// the exchange's actions become lws calls, blob port calls and log lines.
/// Touched only on the service thread.
final class HTTPExchanges {
    private let blobs: any BlobStorage
    private let limits: BlobLimits
    private let authenticate: Authenticator
    private let clock: HostClock
    private let logger: Logger
    /// Hands a port's answer to the service thread, by exchange number.
    private let post: @Sendable (UInt64, BlobExchange.StorageAnswer) -> Void
    private var exchanges: [OpaquePointer: LiveExchange] = [:]
    private var exchangesByNumber: [UInt64: LiveExchange] = [:]
    private var nextExchange: UInt64 = 1
    /// Since the last blob storage failure, nothing was stored: the next
    /// upload stored is logged as the recovery, as the op log's is.
    private var blobStorageFailing = false

    init(
        blobs: any BlobStorage, limits: BlobLimits, authenticate: @escaping Authenticator, clock: HostClock,
        logger: Logger, post: @escaping @Sendable (UInt64, BlobExchange.StorageAnswer) -> Void
    ) {
        self.blobs = blobs
        self.limits = limits
        self.authenticate = authenticate
        self.clock = clock
        self.logger = logger
        self.post = post
    }

    /// What the shim reads of a request's headers.
    func requestHead(_ wsi: OpaquePointer, path: String) -> BlobExchange.Head {
        BlobExchange.Head(
            method: easel_lws_http_method(wsi), path: path,
            document: requestHeader { easel_lws_query(wsi, "doc=", $0, $1) },
            authorization: requestHeader { easel_lws_header(wsi, easel_lws_token_authorization, $0, $1) },
            contentLength: requestHeader { easel_lws_header(wsi, easel_lws_token_content_length, $0, $1) }
                .flatMap { Int64($0) },
            ifNoneMatch: requestHeader { easel_lws_if_none_match(wsi, $0, $1) })
    }

    func startBlob(_ wsi: OpaquePointer, path: String) -> Int32 {
        let uploading = exchanges.values.filter(\.exchange.isUploading).count
        let (exchange, actions) = BlobExchange.blob(
            number: nextExchange, head: requestHead(wsi, path: path), limits: limits,
            uploadsInFlight: uploading, authenticate: authenticate, at: clock.now)
        return begin(exchange, on: wsi, actions)
    }

    /// A whole answer to any request, decided at once (health, metrics, the
    /// site), after the request's body when it has one.
    func answerWhole(_ wsi: OpaquePointer, _ response: HTTPResponse) -> Int32 {
        let (exchange, actions) = BlobExchange.answering(
            response, number: nextExchange, head: requestHead(wsi, path: ""), limits: limits)
        return begin(exchange, on: wsi, actions)
    }

    private func begin(_ exchange: BlobExchange, on wsi: OpaquePointer, _ actions: [BlobExchange.Action]) -> Int32 {
        if let earlier = exchanges[wsi] { end(earlier) }
        nextExchange += 1
        let live = LiveExchange(exchange: exchange, wsi: wsi)
        exchanges[wsi] = live
        exchangesByNumber[exchange.number] = live
        return carryOut(actions, of: live)
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer, on wsi: OpaquePointer) -> Int32 {
        guard let live = exchanges[wsi] else { return -1 }
        return carryOut(live.exchange.body(bytes), of: live)
    }

    func endOfBody(on wsi: OpaquePointer) -> Int32 {
        guard let live = exchanges[wsi] else { return -1 }
        return carryOut(live.exchange.bodyEnded(), of: live)
    }

    func storageAnswered(_ answer: BlobExchange.StorageAnswer, for number: UInt64) {
        guard let live = exchangesByNumber[number] else { return }
        if carryOut(live.exchange.storage(answer), of: live) != 0 {
            // Nothing to return -1 to: have lws close it on the next write.
            live.closing = true
            lws_callback_on_writable(live.wsi)
        }
    }

    /// The HTTP connection closed.
    func closed(_ wsi: OpaquePointer) {
        if let live = exchanges[wsi] { end(live) }
    }

    private func end(_ live: LiveExchange) {
        _ = carryOut(live.exchange.connectionEnded(), of: live)
        forget(live)
    }

    private func forget(_ live: LiveExchange) {
        exchanges[live.wsi] = nil
        exchangesByNumber[live.exchange.number] = nil
    }

    // MARK: Writing

    func writeNext(on wsi: OpaquePointer) -> Int32 {
        guard let live = exchanges[wsi] else { return -1 }
        if live.closing { return -1 }
        guard let part = live.exchange.nextPart else { return 0 }
        let written: Int32
        switch part {
        case .headers(let response, let length):
            written = response.headerLines.withCString { extra in
                easel_lws_http_headers(wsi, response.status, response.contentType, length, extra)
            }
        case .body(let bytes, let final):
            var buffer = [UInt8](repeating: 0, count: easel_lws_pre) + bytes
            written = buffer.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return -1 }
                return easel_lws_http_part(wsi, base + easel_lws_pre, bytes.count, final ? 1 : 0)
            }
        case .end:
            written = 0
        }
        if written != 0 { return -1 }
        let result = carryOut(live.exchange.wrote(), of: live)
        guard live.exchange.isOver else { return result }
        // The transaction is over: the connection may carry another.
        forget(live)
        if result != 0 { return result }
        if case .end = part { return easel_lws_http_done(wsi) }
        return 0
    }

    // MARK: Actions

    /// Carries out an exchange's actions; -1 when the connection is to
    /// close now.
    private func carryOut(_ actions: [BlobExchange.Action], of live: LiveExchange) -> Int32 {
        let wsi = live.wsi
        var result: Int32 = 0
        for action in actions {
            switch action {
            case .store(let call): call.perform(on: blobs, for: live.exchange.handle, clock: clock, answer: post)
            case .pauseReading: easel_lws_read_flow(wsi, 0)
            case .resumeReading: easel_lws_read_flow(wsi, 1)
            case .write: lws_callback_on_writable(wsi)
            case .closeNow: result = -1
            case .progress: easel_lws_http_progress(wsi, Int32(limits.idleSeconds))
            case .refused(let status):
                logger.notice("blob refused", metadata: blobMetadata(live.exchange, ["status": "\(status)"]))
            case .stored(let created):
                logger.info("blob stored", metadata: blobMetadata(live.exchange, ["new": "\(created)"]))
                if blobStorageFailing {
                    blobStorageFailing = false
                    logger.notice("blob storage recovered")
                }
            case .failed(let what, let failure, let incident):
                blobStorageFailing = true
                logger.error(
                    "\(what) failed", metadata: ["incident": "\(incident)", "detail": "\(failure.detail)"])
            }
        }
        return result
    }

    private func blobMetadata(_ exchange: BlobExchange, _ metadata: Logger.Metadata) -> Logger.Metadata {
        guard let request = exchange.request else { return metadata }
        return metadata.merging(["blob": "\(request.hash.hex)", "document": "\(request.document)"]) { $1 }
    }

}

/// Reads a request header through the shim into a string.
func requestHeader(_ read: (UnsafeMutablePointer<CChar>, Int32) -> Int32) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = buffer.withUnsafeMutableBufferPointer { pointer -> Int32 in
        guard let base = pointer.baseAddress else { return -1 }
        return read(base, Int32(pointer.count))
    }
    guard length >= 0 else { return nil }
    return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// An exchange and the connection it is on. Touched only on the service
/// thread.
final class LiveExchange {
    let exchange: BlobExchange
    let wsi: OpaquePointer
    /// A port answer asked to close: the next writable callback does.
    var closing = false

    init(exchange: BlobExchange, wsi: OpaquePointer) {
        self.exchange = exchange
        self.wsi = wsi
    }
}

extension BlobExchange.StoreCall {
    /// The call on the port; its answer goes back by `answer`, with the
    /// exchange's number.
    func perform(
        on blobs: any BlobStorage, for upload: UploadHandle, clock: HostClock,
        answer: @escaping @Sendable (UInt64, BlobExchange.StorageAnswer) -> Void
    ) {
        let number = upload.rawValue
        switch self {
        case .begin:
            blobs.beginUpload(upload, at: clock.now) { answer(number, .began($0)) }
        case .append(let sequence, let bytes):
            blobs.appendChunk(bytes, to: upload, sequence: sequence) { answer(number, .chunkWritten($0)) }
        case .finish(let hash, let size, let type, let document):
            blobs.finishUpload(upload, as: hash, size: size, type: type, document: document, at: clock.now) {
                answer(number, .finished($0))
            }
        case .abandon:
            blobs.abandonUpload(upload)
        case .locate(let hash, let document):
            blobs.locate(hash, in: document) { answer(number, .located($0)) }
        case .read(let sequence, let blob):
            blobs.readChunk(sequence, of: blob) { answer(number, .chunkRead($0)) }
        }
    }
}
