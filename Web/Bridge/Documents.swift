import EaselModel
import EaselProtocol

/// Documents JavaScript holds by handle. WebAssembly runs this module on
/// one thread.
nonisolated(unsafe) private var documents: [Int32: Document] = [:]
nonisolated(unsafe) private var nextHandle: Int32 = 1
/// Every document's `ops` messages are read into the same storage.
nonisolated(unsafe) private var opsReader = OpsMessageReader()

/// A new, empty document; its handle.
@_cdecl("easel_document_open")
public func easelDocumentOpen() -> Int32 {
    let handle = nextHandle
    nextHandle += 1
    documents[handle] = Document()
    return handle
}

@_cdecl("easel_document_close")
public func easelDocumentClose(_ handle: Int32) {
    documents[handle] = nil
}

/// Applies the ops one message carries (`ops`, `welcome`, `push`) to a
/// document: 0, or the message's decoding error code; -2 for no such
/// document.
@_cdecl("easel_document_receive")
public func easelDocumentReceive(_ handle: Int32, _ pointer: UnsafeRawPointer, _ count: Int32, _ json: Int32)
    -> Int32
{
    // Taken out while it changes, so every apply works on a uniquely held
    // value instead of going through the dictionary once per op.
    guard var document = documents.removeValue(forKey: handle) else { return Status.unknown.rawValue }
    defer { documents[handle] = document }
    if json == 0 {
        // An `ops` message, the one that comes by the thousand, is read in
        // place and merged as plain number sets (`ReceivedOps`).
        do throws(DecodeError) {
            if try opsReader.read(UnsafeRawBufferPointer(start: pointer, count: Int(max(count, 0)))) {
                document.apply(opsReader.ops)
                return 0
            }
        } catch {
            return Int32(error.code.rawValue)
        }
    }
    let message: Message
    do throws(DecodeError) {
        message = try Message(decoding: bytes(at: pointer, count: count), as: json != 0 ? .json : .binary)
    } catch {
        return Int32(error.code.rawValue)
    }
    // Indices, not `for in`: iterating would copy every op.
    switch message {
    case .ops(let ops):
        // JSON: binary `ops` merge above.
        for index in ops.indices { document.apply(ops[index].op) }
    case .welcome(let welcome):
        switch welcome.content {
        // Together, so a text's snapshot pieces load as one.
        case .snapshot(let ops): document.apply(contentsOf: ops)
        case .tail(let ops): for index in ops.indices { document.apply(ops[index].op) }
        }
    case .push(let push):
        for index in push.ops.indices { document.apply(push.ops[index]) }
    default:
        break
    }
    return 0
}

/// The document's state hash (Protocol/README.md, section 9); 0 for no
/// such document.
@_cdecl("easel_document_hash")
public func easelDocumentHash(_ handle: Int32) -> UInt64 {
    documents[handle]?.stateHash.rawValue ?? 0
}
