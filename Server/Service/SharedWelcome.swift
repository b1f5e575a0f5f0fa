import EaselModel
import EaselProtocol
import EaselSync

/// The content of a big welcome (a snapshot, or a long tail), encoded once
/// and queued for every joiner that needs the same one: 200 joiners of a
/// 50,000-entity document hold one encoding between them, not 200. Each
/// joiner's own last piece (its peers, `more` false) follows it.
///
/// The encoding happens off the service thread (snapshots are encoded off
/// it); until then the welcome holds its place in each joiner's queue, so
/// what the room sends after it still leaves after it. Touched only on the
/// service thread: the encoder gets the message and hands back frames.
final class SharedWelcome {
    let number: UInt64
    let key: Key
    /// Joiners waiting for the encoding, woken when it is done.
    var waiting: [Joiner] = []
    private(set) var frames: [OutFrame]?
    private(set) var byteCount = 0

    /// What makes two welcomes' content the same bytes.
    struct Key: Hashable {
        var document: DocumentName
        var epoch: Epoch
        var position: UInt64
        var protocolVersion: UInt32
        var encoding: WireEncoding
        /// Nil for a snapshot; a tail's first position otherwise.
        var tailFrom: UInt64?
        var opCount: Int
    }

    /// A joiner whose welcome deadline starts once the encoding is done,
    /// `allowance` milliseconds for what it queued beside the content.
    struct Joiner {
        var connection: ConnectionID
        var allowance: Int64
    }

    init(number: UInt64, key: Key) {
        self.number = number
        self.key = key
    }

    func finish(_ frames: [OutFrame]) {
        self.frames = frames
        byteCount = frames.reduce(0) { $0 + $1.count }
    }

    /// Welcomes with more ops than this are shared and encoded off the
    /// service thread; smaller ones cost less than the handover.
    static let opsEncodedInline = 512

    static func isBig(_ welcome: Welcome) -> Bool { welcome.opCount > opsEncodedInline }

    static func key(of welcome: Welcome, in document: DocumentName, as encoding: WireEncoding) -> Key {
        let tailFrom: UInt64? =
            switch welcome.content {
            case .snapshot: nil
            case .tail(let ops): ops.first?.position
            }
        return Key(
            document: document, epoch: welcome.epoch, position: welcome.position,
            protocolVersion: welcome.protocolVersion, encoding: encoding, tailFrom: tailFrom,
            opCount: welcome.opCount)
    }

    /// The shared part: every piece of the content, each marked `more`,
    /// without peers. The encoder thread's work.
    static func encodeContent(of welcome: Welcome, as encoding: WireEncoding) -> [OutFrame] {
        var content = welcome
        content.peers = []
        content.more = true
        return Message.welcome(content).wireFrames(as: encoding).map(OutFrame.init)
    }

    /// The joiner's own last piece: no ops, its peers, `more` false.
    static func encodeEnding(of welcome: Welcome, as encoding: WireEncoding) -> [OutFrame] {
        var ending = welcome
        ending.content = welcome.content.emptied
        ending.more = false
        return Message.welcome(ending).wireFrames(as: encoding).map(OutFrame.init)
    }
}
