import EaselProtocol
import EaselSync
import Foundation

/// A big welcome (a snapshot, or a long tail) being encoded off the service
/// thread (DESIGN.md: snapshots are encoded off it). It holds its place in
/// each recipient's queue, so what the room sends after it still leaves
/// after it; the service thread fills it in when the encoder is done.
/// Unchecked: the encoder only reads it; the service thread fills it in after the inbox hands it back.
final class EncodingJob: @unchecked Sendable {
    let recipients: [ConnectionID]
    /// Written once on the service thread, read only there.
    private(set) var frames: [WireEncoding: [OutFrame]]?

    init(recipients: [ConnectionID]) {
        self.recipients = recipients
    }

    /// Welcomes with more ops than this are encoded off the service thread;
    /// smaller ones cost less than the handover.
    static let opsEncodedInline = 512

    static func isBig(_ message: Message) -> Bool {
        guard case .welcome(let welcome) = message else { return false }
        switch welcome.content {
        case .snapshot(let ops): return ops.count > opsEncodedInline
        case .tail(let ops): return ops.count > opsEncodedInline
        }
    }

    /// The encoder thread's work: the frames of each encoding asked for.
    static func encode(_ message: Message, as encodings: Set<WireEncoding>) -> [WireEncoding: [OutFrame]] {
        var frames: [WireEncoding: [OutFrame]] = [:]
        for encoding in encodings {
            frames[encoding] = message.wireFrames(as: encoding).map(OutFrame.init)
        }
        return frames
    }

    func finish(_ frames: [WireEncoding: [OutFrame]]) {
        self.frames = frames
    }
}
