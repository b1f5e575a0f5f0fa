import EaselHTTP
import EaselModel
import EaselProtocol
import EaselSync

/// What a blob exchange takes and gives.
extension BlobExchange {
    /// What the request's headers said, as the shim reads them.
    struct Head {
        /// The shim's code: 1 GET, 2 HEAD, 3 PUT, anything else another method.
        var method: Int32
        var path = ""
        var document: String?
        var authorization: String?
        var contentLength: Int64?
        var ifNoneMatch: String?
    }

    enum Action: Equatable {
        /// A call on the blob port; its answer comes back to `storage`.
        case store(StoreCall)
        case pauseReading, resumeReading
        /// Ask for a writable callback: a part is ready.
        case write
        /// Close the connection now (a refused body too long to drain).
        case closeNow
        /// The transfer moved: its idle timer starts again.
        case progress
        /// For the log.
        case refused(status: UInt32)
        case stored(created: Bool)
        case failed(what: String, failure: StorageFailure, incident: String)
    }

    enum StoreCall: Equatable {
        case begin
        case append(sequence: Int, bytes: [UInt8])
        case finish(BlobHash, size: Int64, type: BlobType, document: DocumentName)
        case abandon
        case locate(BlobHash, DocumentName)
        case read(sequence: Int, of: StoredBlob)
    }

    /// What the blob port answered.
    enum StorageAnswer: Sendable {
        case began(Result<Void, StorageFailure>)
        case chunkWritten(Result<Void, StorageFailure>)
        case finished(Result<UploadFinish, StorageFailure>)
        case located(Result<StoredBlob?, StorageFailure>)
        case chunkRead(Result<[UInt8]?, StorageFailure>)
    }

    enum Part: Equatable {
        /// Status line and headers; `length` is the body's, written after.
        case headers(HTTPResponse, length: Int)
        case body([UInt8], final: Bool)
        /// Ends an answer without a body (HEAD, 304).
        case end
    }
}
