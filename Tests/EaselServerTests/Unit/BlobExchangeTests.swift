import EaselHTTP
import EaselModel
import EaselProtocol
@testable import EaselServer
import EaselStore
import EaselSync
import Foundation
import Testing

/// A blob exchange without a socket or a store: headers, body bytes and
/// the port's answers in, actions and parts out.
@Suite struct BlobExchangeTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let hash = BlobHash(bytes: [UInt8](repeating: 0xAB, count: 32))
    static let path = "/blobs/" + String(repeating: "ab", count: 32)
    static let limits = BlobLimits()
    static var pics: DocumentName { get throws { try DocumentName("pics") } }

    static let anyone: Authenticator = { _, _ in .success(.anonymousEditor) }
    /// Token "edit" may upload, "view" may only read, anything else is refused.
    static let tokens: Authenticator = { hello, _ in
        switch hello.token {
        case "edit": .success(ConnectionIdentity(user: "ann", role: .edit))
        case "view": .success(ConnectionIdentity(user: "ann", role: .view))
        default: .failure(AuthenticationRefusal(code: .unauthorized, message: "no such token"))
        }
    }

    private func head(
        _ method: Int32, path: String = Self.path, document: String? = "pics", token: String? = nil,
        length: Int64? = nil, ifNoneMatch: String? = nil
    ) -> BlobExchange.Head {
        BlobExchange.Head(
            method: method, path: path, document: document, authorization: token.map { "Bearer \($0)" },
            contentLength: length, ifNoneMatch: ifNoneMatch)
    }

    private func start(
        _ head: BlobExchange.Head, uploads: Int = 0, authenticate: @escaping Authenticator = Self.anyone
    ) -> (BlobExchange, [BlobExchange.Action]) {
        BlobExchange.blob(
            number: 7, head: head, limits: Self.limits, uploadsInFlight: uploads, authenticate: authenticate,
            at: Timestamp(milliseconds: 0), incidents: { "0000cafe" })
    }

    /// The answer the exchange has queued: status, headers, body, and
    /// whether it closes the connection after it.
    private func answer(of exchange: BlobExchange) -> (status: UInt32, text: String, headers: [String: String])? {
        guard case .headers(let response, let length)? = exchange.parts.first else { return nil }
        var body: [UInt8] = []
        if case .body(let bytes, true)? = exchange.parts.dropFirst().first { body = bytes }
        #expect(body.isEmpty || body.count == length)
        let headers = Dictionary(response.headers.map { ($0.name, $0.value) }) { $1 }
        return (response.status, String(decoding: body, as: UTF8.self), headers)
    }

    private func stores(_ actions: [BlobExchange.Action]) -> [BlobExchange.StoreCall] {
        actions.compactMap { if case .store(let call) = $0 { call } else { nil } }
    }

    // MARK: Refused on the headers

    @Test func aPathThatIsNotSixtyFourHexDigitsIs404AndAHeadOfItHasNoBody() {
        let (get, actions) = start(head(1, path: "/blobs/nope"))
        #expect(answer(of: get)?.status == 404)
        #expect(actions.contains(.refused(status: 404)) && actions.contains(.write))
        let (headed, _) = start(head(2, path: "/blobs/nope"))
        #expect(headed.parts.count == 2 && headed.parts.last == .end)
        guard case .headers(let response, let length)? = headed.parts.first else { return #expect(Bool(false)) }
        #expect(response.status == 404 && length == response.body.count && length > 0)
    }

    @Test func aMethodOtherThanGetHeadOrPutIs405NamingTheOnesAllowed() {
        let (exchange, _) = start(head(4))
        #expect(answer(of: exchange)?.status == 405)
        #expect(answer(of: exchange)?.headers["allow"] == "GET, HEAD, PUT")
    }

    @Test func aMissingOrBadDocumentIs400() {
        #expect(answer(of: start(head(1, document: nil)).0)?.status == 400)
        #expect(answer(of: start(head(1, document: "")).0)?.status == 400)
        #expect(answer(of: start(head(1, document: "a\u{0}b")).0)?.text.contains("not a document name") == true)
    }

    @Test func noTokenIs401WithAChallengeAViewTokenUploadingIs403() throws {
        let (none, _) = start(head(1), authenticate: Self.tokens)
        #expect(answer(of: none)?.status == 401 && answer(of: none)?.headers["www-authenticate"] == "Bearer")
        #expect(answer(of: none)?.text.contains("Authorization: Bearer") == true, "HTTP words, not a hello's")
        let (viewer, _) = start(head(3, token: "view", length: 8), authenticate: Self.tokens)
        // A refused upload's answer waits for its body to be read and dropped.
        #expect(viewer.parts.isEmpty)
        _ = viewer.body(Self.png)
        _ = viewer.bodyEnded()
        #expect(answer(of: viewer)?.status == 403)
        let (reader, actions) = start(head(1, token: "view"), authenticate: Self.tokens)
        #expect(reader.parts.isEmpty && stores(actions) == [.locate(Self.hash, try Self.pics)])
    }

    @Test func anUploadWithoutContentLengthIs411AtOnceAndClosesWithoutHoldingASlot() {
        let (exchange, actions) = start(head(3))
        #expect(answer(of: exchange)?.status == 411 && exchange.closesAfterAnswer)
        #expect(!exchange.isUploading && stores(actions).isEmpty)
    }

    @Test func tooBigByContentLengthIs413AfterTheBodyIsDrainedOrAtOnceAndClosingBeyondTheDrainLimit() {
        let (drained, actions) = start(head(3, length: Self.limits.maxBytes + 1))
        #expect(actions.contains(.refused(status: 413)) && drained.parts.isEmpty && stores(actions).isEmpty)
        #expect(drained.body([UInt8](repeating: 1, count: 1 << 20)) == [])
        _ = drained.bodyEnded()
        #expect(answer(of: drained)?.status == 413 && !drained.closesAfterAnswer)

        let (huge, _) = start(head(3, length: 1 << 40))
        #expect(answer(of: huge)?.status == 413 && huge.closesAfterAnswer)
    }

    @Test func aRefusedBodyLongerThanTheDrainLimitClosesTheConnection() {
        let (refused, _) = start(head(3, length: 20 << 20), uploads: Self.limits.maxUploads)
        var closed = false
        for _ in 0..<((refused.drainLimit >> 20) + 2) where !closed {
            closed = refused.body([UInt8](repeating: 0, count: 1 << 20)).contains(.closeNow)
        }
        #expect(closed)
    }

    @Test func theUploadsInFlightLimitIs503WithRetryAfter() {
        let (busy, actions) = start(head(3, length: 8), uploads: Self.limits.maxUploads)
        #expect(actions.contains(.refused(status: 503)))
        _ = busy.body(Self.png)
        _ = busy.bodyEnded()
        #expect(answer(of: busy)?.status == 503 && answer(of: busy)?.headers["retry-after"] == "1")
        let (taken, more) = start(head(3, length: 8), uploads: Self.limits.maxUploads - 1)
        #expect(taken.isUploading && stores(more) == [.begin])
    }

    // MARK: Uploads

    @Test func anUploadGoesAChunkAtATimePausesFourChunksAheadResumesBelowTwoAndFinishesAsItsSniffedType() throws {
        let chunk = BlobStore.chunkLimit
        let size = 5 * chunk + 10
        let (exchange, _) = start(head(3, length: Int64(size)))
        var actions = exchange.body(Self.png + [UInt8](repeating: 3, count: 4 * chunk - Self.png.count))
        #expect(stores(actions).map { if case .append(let sequence, _) = $0 { sequence } else { -1 } } == [0, 1, 2, 3])
        #expect(actions.contains(.pauseReading))
        actions = exchange.body([UInt8](repeating: 4, count: chunk + 10))
        #expect(stores(actions).count == 1 && !actions.contains(.pauseReading))
        for _ in 0..<3 { #expect(!exchange.storage(.chunkWritten(.success(()))).contains(.resumeReading)) }
        #expect(exchange.storage(.chunkWritten(.success(()))).contains(.resumeReading))
        actions = exchange.bodyEnded()
        #expect(
            stores(actions).last == .finish(Self.hash, size: Int64(size), type: .png, document: try Self.pics))
        if case .append(5, let rest)? = stores(actions).first { #expect(rest.count == 10) } else { #expect(Bool(false)) }
        #expect(!exchange.isUploading)
        #expect(exchange.storage(.finished(.success(.created))).contains(.stored(created: true)))
        #expect(answer(of: exchange)?.status == 201)
        #expect(answer(of: exchange)?.headers["etag"] == "\"\(Self.hash)\"")
    }

    @Test func storedAlreadyIs200() {
        let (exchange, _) = start(head(3, length: 8))
        _ = exchange.body(Self.png)
        _ = exchange.bodyEnded()
        _ = exchange.storage(.finished(.success(.alreadyStored)))
        #expect(answer(of: exchange)?.status == 200 && answer(of: exchange)?.text == "already stored\n")
    }

    @Test func bytesThatAreNoImageAre415AndTheUploadIsAbandoned() {
        let (exchange, _) = start(head(3, length: 5))
        _ = exchange.body(Array("<svg>".utf8))
        let actions = exchange.bodyEnded()
        #expect(stores(actions).contains(.abandon) && actions.contains(.refused(status: 415)))
        #expect(answer(of: exchange)?.status == 415)
    }

    @Test func anEmptyBodyIs415() {
        let (exchange, actions) = start(head(3, length: 0))
        #expect(stores(actions).contains(.abandon) && answer(of: exchange)?.status == 415)
    }

    @Test func bytesThatHashToAnotherNameAre400NamingTheirHash() {
        let (exchange, _) = start(head(3, length: 8))
        _ = exchange.body(Self.png)
        _ = exchange.bodyEnded()
        let other = BlobHash(bytes: [UInt8](repeating: 0x01, count: 32))
        #expect(exchange.storage(.finished(.success(.wrongHash(other)))).contains(.refused(status: 400)))
        #expect(answer(of: exchange)?.text.contains("\(other)") == true)
    }

    @Test func aStorageFailureIs500WithOnlyAnIncidentNumberAndTheDetailGoesToTheLog() {
        let failure = StorageFailure(.unavailable, "INSERT INTO blob_chunks … disk I/O error (10)")
        let (exchange, _) = start(head(3, length: 8))
        _ = exchange.body(Self.png)
        let actions = exchange.storage(.chunkWritten(.failure(failure)))
        #expect(actions.contains(.failed(what: "storing the blob", failure: failure, incident: "0000cafe")))
        #expect(stores(actions).contains(.abandon))
        let answered = answer(of: exchange)
        #expect(answered?.status == 500 && answered?.text == "storing the blob failed (incident 0000cafe)\n")
        #expect(exchange.closesAfterAnswer && !(answered?.text.contains("INSERT") ?? true))

        let (reading, _) = start(head(1))
        _ = reading.storage(.located(.failure(failure)))
        #expect(answer(of: reading)?.status == 500 && !reading.closesAfterAnswer)
    }

    @Test func aConnectionThatEndsMidUploadAbandonsIt() {
        let (exchange, _) = start(head(3, length: 100))
        _ = exchange.body(Self.png)
        #expect(stores(exchange.connectionEnded()) == [.abandon])
        #expect(exchange.isOver)
    }

    // MARK: Downloads

    static let stored = StoredBlob(hash: hash, size: 20, type: .png, chunks: 2, key: 3)

    @Test func aDownloadStreamsOneChunkAtATimeAfterItsHeaders() throws {
        let (exchange, actions) = start(head(1))
        #expect(stores(actions) == [.locate(Self.hash, try Self.pics)])
        var next = exchange.storage(.located(.success(Self.stored)))
        #expect(stores(next) == [.read(sequence: 0, of: Self.stored)])
        guard case .headers(let response, 20)? = exchange.nextPart else { return #expect(Bool(false)) }
        #expect(response.status == 200 && response.contentType == "image/png")
        #expect(exchange.wrote() == [.progress])
        next = exchange.storage(.chunkRead(.success([UInt8](repeating: 1, count: 10))))
        #expect(exchange.nextPart == .body([UInt8](repeating: 1, count: 10), final: false))
        #expect(stores(exchange.wrote()) == [.read(sequence: 1, of: Self.stored)])
        _ = exchange.storage(.chunkRead(.success([UInt8](repeating: 2, count: 10))))
        #expect(exchange.nextPart == .body([UInt8](repeating: 2, count: 10), final: true))
        _ = exchange.wrote()
        #expect(exchange.isOver)
    }

    @Test func aBlobNeverUploadedToTheDocumentIs404() {
        let (exchange, _) = start(head(1))
        _ = exchange.storage(.located(.success(nil)))
        #expect(answer(of: exchange)?.status == 404)
    }

    @Test func ifNoneMatchNamingTheTagIs304AndHeadIsHeadersAlone() {
        let (cached, _) = start(head(1, ifNoneMatch: "\"x\", \"\(Self.hash)\""))
        #expect(stores(cached.storage(.located(.success(Self.stored)))).isEmpty)
        #expect(answer(of: cached)?.status == 304 && cached.parts.last == .end)
        let (headed, _) = start(head(2))
        #expect(stores(headed.storage(.located(.success(Self.stored)))).isEmpty)
        #expect(headed.parts.count == 2 && headed.parts.last == .end)
    }

    @Test func aChunkThatCannotBeReadCutsTheConnectionAfterTheHeaders() {
        let (exchange, _) = start(head(1))
        _ = exchange.storage(.located(.success(Self.stored)))
        _ = exchange.wrote()
        _ = exchange.storage(.chunkRead(.failure(StorageFailure(.unavailable, "gone"))))
        #expect(exchange.nextPart == .end)
        #expect(exchange.wrote().contains(.closeNow))
    }

    // MARK: Whole answers

    @Test func aWholeAnswerToARequestWithABodyWaitsForTheBody() {
        let (exchange, actions) = BlobExchange.answering(
            .text(200, "serving\n"), number: 1, head: head(3, path: "/healthz", length: 5), limits: Self.limits)
        #expect(actions.isEmpty && exchange.parts.isEmpty)
        _ = exchange.body(Array("hello".utf8))
        #expect(exchange.bodyEnded() == [.write])
        #expect(answer(of: exchange)?.text == "serving\n")
    }
}
