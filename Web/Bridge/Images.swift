import EaselModel
import EaselSync

// Blob before op, for the page: the page uploads an image's bytes itself
// (HTTP is the browser's), and tells the session when the upload starts
// and how it ended; the session holds the image's create until then.

/// Places an image whose upload the page is starting: `hex` names its blob
/// (64 hex digits), at x, y, width and height in screen units (the size it
/// shows at the view's zoom). It shows at once here; its create waits for
/// `easel_session_blob_stored`. 0, -1 refused by the editor, -2 no such
/// session, -3 not a blob's name.
@_cdecl("easel_session_place_image")
public func easelSessionPlaceImage(
    _ handle: Int32, _ hex: UnsafeRawPointer, _ hexCount: Int32, _ x: Float, _ y: Float, _ width: Float,
    _ height: Float, _ now: Double
) -> Int32 {
    guard let session = sessions[handle] else { return Status.unknown.rawValue }
    guard let blob = blob(at: hex, count: hexCount) else { return Status.outOfRange.rawValue }
    session.client.awaitBlob(blob)
    let zoom = session.client.editor.state.viewport.zoom
    let result = outcome { () throws(ModelError) in
        try session.editing { () throws(ModelError) in
            try session.client.perform(
                .place(.image(blob, width: width / zoom, height: height / zoom), at: Point(x: x, y: y)),
                at: timestamp(now))
        }
    }
    // Nothing waits for a blob the editor would not place.
    if result != 0 { session.client.blobFailed(blob, reason: "the editor refused the image") }
    return result
}

/// Makes an image whose upload the page is starting the document's
/// background: `hex` names its blob, width and height its box in document
/// units (centred at the origin), `fit` how it fills the box (0 contain, 1
/// cover, 2 stretch). It shows at once here; the change waits for
/// `easel_session_blob_stored`. 0, -1 refused, -2 no such session, -3 not
/// a blob's name or no such fit.
@_cdecl("easel_session_set_background_image")
public func easelSessionSetBackgroundImage(
    _ handle: Int32, _ hex: UnsafeRawPointer, _ hexCount: Int32, _ width: Float, _ height: Float, _ fit: Int32,
    _ now: Double
) -> Int32 {
    guard let session = sessions[handle] else { return Status.unknown.rawValue }
    guard let blob = blob(at: hex, count: hexCount), let fit = UInt8(exactly: fit).flatMap(BackgroundFit.init(rawValue:))
    else { return Status.outOfRange.rawValue }
    session.client.awaitBlob(blob)
    let result = outcome { () throws(ModelError) in
        try session.editing { () throws(ModelError) in
            try session.client.perform(.setBackground(.image(blob, width: width, height: height, fit: fit)), at: timestamp(now))
        }
    }
    if result != 0 { session.client.blobFailed(blob, reason: "the editor refused the background") }
    return result
}

/// The server stored the blob: the ops that waited for it go out. 0, -2 no
/// such session, -3 not a blob's name.
@_cdecl("easel_session_blob_stored")
public func easelSessionBlobStored(_ handle: Int32, _ hex: UnsafeRawPointer, _ hexCount: Int32) -> Int32 {
    guard let session = sessions[handle] else { return Status.unknown.rawValue }
    guard let blob = blob(at: hex, count: hexCount) else { return Status.outOfRange.rawValue }
    session.client.blobStored(blob)
    return 0
}

/// The upload failed for good: the place is undone (the session reloads
/// the document without it) and `easel_session_take_outputs` reports it
/// with `reason`. 0, -2 no such session, -3 not a blob's name.
@_cdecl("easel_session_blob_failed")
public func easelSessionBlobFailed(
    _ handle: Int32, _ hex: UnsafeRawPointer, _ hexCount: Int32, _ reason: UnsafeRawPointer, _ reasonCount: Int32
) -> Int32 {
    guard let session = sessions[handle] else { return Status.unknown.rawValue }
    guard let blob = blob(at: hex, count: hexCount) else { return Status.outOfRange.rawValue }
    session.client.blobFailed(blob, reason: String(decoding: bytes(at: reason, count: reasonCount), as: UTF8.self))
    return 0
}

/// The blobs whose uploads the session still waits for (after a reload,
/// those of the page before), as hex separated by spaces in the result
/// buffer; how many.
@_cdecl("easel_session_awaited_blobs")
public func easelSessionAwaitedBlobs(_ handle: Int32) -> Int32 {
    let blobs = sessions[handle]?.client.awaitedBlobs.sorted() ?? []
    setResult(Array(blobs.map { $0.hex }.joined(separator: " ").utf8))
    return Int32(blobs.count)
}

private func blob(at pointer: UnsafeRawPointer, count: Int32) -> BlobHash? {
    BlobHash(hex: String(decoding: bytes(at: pointer, count: count), as: UTF8.self))
}
