import EaselModel
import EaselProtocol
import EaselSync

// Rules the page follows that belong to the protocol or the clients, not to
// the page: what a document's name may be, how a replica ID is drawn, how
// long to wait before trying again, and what a blob answer's status means.
// The Swift clients read the same code.

/// Whether a document name is one (Protocol/README.md, section 2.1): 0 when
/// it is, else 1 with the reason in the result buffer (UTF-8).
@_cdecl("easel_document_name_problem")
public func easelDocumentNameProblem(_ pointer: UnsafeRawPointer, _ count: Int32) -> Int32 {
    do throws(DecodeError) {
        _ = try DocumentName(String(decoding: bytes(at: pointer, count: count), as: UTF8.self))
        return 0
    } catch {
        setResult(Array(error.detail.utf8))
        return 1
    }
}

/// A fresh replica ID for a new session: 64 random bits, never 0.
@_cdecl("easel_new_replica")
public func easelNewReplica() -> UInt64 {
    ReplicaID.random().rawValue
}

/// How long to wait, in milliseconds, after `failures` failures in a row
/// (1 after the first) under a retry policy (its index in
/// `retryPolicies`), with the random factor drawn here; -1 when the policy's
/// tries are spent, -2 for no such policy.
@_cdecl("easel_retry_delay")
public func easelRetryDelay(_ policy: Int32, _ failures: Int32) -> Double {
    guard retryPolicies.indices.contains(Int(policy)) else { return -2 }
    return retryPolicies[Int(policy)].backoff.delayMilliseconds(afterFailures: Int(failures)) ?? -1
}

/// What an HTTP status answering a blob request means (`BlobFailure`'s raw
/// value), or 0 for a success. A `status` of 0 stands for no answer at
/// all: the server could not be reached.
@_cdecl("easel_blob_failure")
public func easelBlobFailure(_ status: Int32) -> Int32 {
    BlobFailure(httpStatus: Int(status)).map { Int32($0.rawValue) } ?? 0
}
