import EaselModel
import EaselSync

extension DocumentSession {
    /// Places an image: it shows on this screen at once, its bytes go to the
    /// server (retried while the server is busy or unreachable), and only
    /// once they are stored does its create go out, so nobody else ever
    /// sees an image whose bytes the server lacks. When the upload fails for
    /// good the place is undone (the session reports `placeFailed`) and the
    /// error is thrown. The bytes are kept in `downloader`'s caches, when
    /// given, so showing the image never downloads it.
    @discardableResult
    public func placeImage(
        _ bytes: [UInt8], width: Float, height: Float, at point: Point, transport: any BlobTransport,
        retry: RetryPolicy = RetryPolicy(), downloader: BlobDownloader? = nil,
        progress: @escaping @Sendable (BlobProgress) -> Void = { _ in }
    ) async throws -> BlobHash {
        let blob = BlobHash(digesting: bytes)
        try edit { engine in
            engine.awaitBlob(blob)
            do {
                try engine.perform(.place(.image(blob, width: width, height: height), at: point), at: now)
            } catch {
                engine.blobFailed(blob, reason: "\(error)")
                throw error
            }
        }
        try? await downloader?.keep(bytes, as: blob)
        do {
            _ = try await retry.run { () throws(BlobTransferError) -> Bool in
                try await transport.upload(bytes, as: blob, progress: progress)
            }
        } catch {
            edit { $0.blobFailed(blob, reason: "\(error)") }
            throw error
        }
        edit { $0.blobStored(blob) }
        return blob
    }
}
