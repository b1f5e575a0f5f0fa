import EaselBotScript
import EaselClient
import EaselClientHTTP
import EaselLocking
import EaselModel
import EaselSync
import Foundation

/// The images of a fleet's run: the files its scripts upload (read once,
/// uploaded before their place goes out, blob before op), and every image
/// the bots saw during the run, downloaded and checked against its hash.
final class FleetImages: Sendable {
    private let transport: HTTPBlobTransport
    private let downloader: BlobDownloader
    private let files = Locked<[String: [UInt8]]>([:])
    private let tally = Locked(FleetOutcome.Images())
    private let onStored: (@Sendable (BlobHash) -> Void)?

    /// Blobs travel over HTTP on the WebSocket's host and port.
    init(configuration: BotFleet.Configuration) {
        var server = configuration.url
        for (socket, http) in [("ws://", "http://"), ("wss://", "https://")] where server.hasPrefix(socket) {
            server = http + server.dropFirst(socket.count)
        }
        if let path = server.dropFirst(8).firstIndex(of: "/") { server = String(server[..<path]) }
        transport = HTTPBlobTransport(
            server: server, document: configuration.document.description, token: configuration.token)
        downloader = BlobDownloader(transport: transport)
        onStored = configuration.onBlobStored
    }

    var images: FleetOutcome.Images { tally.withLock { $0 } }

    /// Reads the file, puts the image in the document (shown at once here;
    /// nobody else sees it until the upload is stored) and starts the
    /// upload, retried while the server is busy; an upload that fails for
    /// good undoes the place and is counted.
    func carryOut(_ step: ImageStep, in session: DocumentSession, at now: Timestamp) throws(ScriptError) {
        let bytes = try read(step)
        let blob = BlobHash(digesting: bytes)
        let command: Command
        switch step.use {
        case .place(let point, let size?):
            command = .place(.image(blob, width: size.width, height: size.height), at: point)
        case .place(let point, nil):
            let size = try pixelSize(of: bytes, step)
            command = .place(.image(blob, width: size.width, height: size.height), at: point)
        case .background(let fit):
            let size = try pixelSize(of: bytes, step)
            command = .setBackground(.image(blob, width: size.width, height: size.height, fit: fit))
        }
        let refusal = session.edit { engine -> ModelError? in
            engine.awaitBlob(blob)
            do throws(ModelError) {
                try engine.perform(command, at: now)
                return nil
            } catch {
                engine.blobFailed(blob, reason: "\(error)")
                return error
            }
        }
        if let refusal { throw ScriptError(at: step.location, "the editor refused it: \(refusal)") }
        tally.withLock { $0.uploadsStarted += 1 }
        Task { [self] in
            do {
                _ = try await RetryPolicy().run { () async throws(BlobTransferError) -> Bool in
                    try await transport.upload(bytes, as: blob) { _ in }
                }
                onStored?(blob)
                session.edit { $0.blobStored(blob) }
                tally.withLock { $0.uploaded += 1 }
            } catch {
                session.edit { $0.blobFailed(blob, reason: "\(error)") }
                tally.withLock { $0.uploadFailures.append("\(step.file): \(error)") }
            }
        }
    }

    /// Downloads every blob once (the downloader joins concurrent requests
    /// and checks each against its hash), waiting at most `timeout`.
    func verify(_ blobs: Set<BlobHash>, timeout: Duration) {
        let finished = DispatchSemaphore(value: 0)
        let work = Task { [self] in
            await withTaskGroup(of: Void.self) { group in
                for blob in blobs {
                    group.addTask { [self] in
                        do {
                            _ = try await downloader.bytes(of: blob)
                            tally.withLock { $0.verified += 1 }
                        } catch {
                            tally.withLock { $0.unverified.append("\(blob): \(error)") }
                        }
                    }
                }
            }
            finished.signal()
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        if finished.wait(timeout: .now() + seconds) == .timedOut {
            work.cancel()
            tally.withLock { $0.unverified.append("downloads still running after \(timeout)") }
        }
    }

    private func read(_ step: ImageStep) throws(ScriptError) -> [UInt8] {
        if let bytes = files.withLock({ $0[step.file] }) { return bytes }
        guard let data = FileManager.default.contents(atPath: step.file) else {
            throw ScriptError(at: step.location, "cannot read the image \(step.file)")
        }
        let bytes = [UInt8](data)
        files.withLock { $0[step.file] = bytes }
        return bytes
    }

    private func pixelSize(of bytes: [UInt8], _ step: ImageStep) throws(ScriptError) -> ImageSize {
        guard let size = ImageDimensions(of: bytes) else {
            throw ScriptError(at: step.location, "\(step.file) is not a PNG, JPEG, GIF or WebP image")
        }
        return ImageSize(width: Float(size.width), height: Float(size.height))
    }
}
