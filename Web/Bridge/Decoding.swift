import EaselProtocol

/// The batch named by the last refusal `easel_decode` reported, if any.
/// WebAssembly runs this module on one thread.
nonisolated(unsafe) private var refusedBatch: UInt64?

/// Decodes one message, binary (`json` 0) or JSON (`json` 1): 0 when it
/// reads, otherwise the protocol's error code (section 7).
@_cdecl("easel_decode")
public func easelDecode(_ pointer: UnsafeRawPointer, _ count: Int32, _ json: Int32) -> Int32 {
    do throws(DecodeError) {
        _ = try Message(decoding: bytes(at: pointer, count: count), as: json != 0 ? .json : .binary)
        refusedBatch = nil
        return 0
    } catch {
        refusedBatch = error.batch
        return Int32(error.code.rawValue)
    }
}

/// 1 when the last refusal named a push's batch, else 0.
@_cdecl("easel_refused_batch_present")
public func easelRefusedBatchPresent() -> Int32 {
    refusedBatch == nil ? 0 : 1
}

/// The batch the last refusal named (0 when none).
@_cdecl("easel_refused_batch")
public func easelRefusedBatch() -> UInt64 {
    refusedBatch ?? 0
}
