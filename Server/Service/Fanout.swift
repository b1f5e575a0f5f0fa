import EaselModel
import EaselProtocol
import EaselSync
import Foundation

/// Delivery to the connections: a message is encoded once per encoding and
/// the same frames are queued for every recipient; a big welcome's content
/// is encoded once, off the service thread, and shared by every joiner that
/// needs it. Backpressure lives here too: a connection whose own queue
/// passes the bound, or that has not taken its welcome by its deadline, is
/// closed with 4002. Touched only on the service thread.
final class Fanout {
    private(set) var connections: [ConnectionID: LiveConnection] = [:]
    private let limits: ServerLimits
    private let metrics: ServerMetrics
    /// Encodes big welcomes, so a snapshot of a large document does not
    /// stall every other connection's traffic.
    private let encoder = DispatchQueue(label: "easel-encoder", qos: .userInitiated)
    /// Hands the encoder's frames back to the service thread.
    private let handBack: @Sendable (_ welcome: UInt64, _ frames: [OutFrame]) -> Void
    /// Welcomes being encoded, by number.
    private var encoding: [UInt64: SharedWelcome] = [:]
    /// Each document's latest big welcome, while some joiner still holds it.
    private var latest: [DocumentName: WeakWelcome] = [:]
    private var nextWelcome: UInt64 = 1
    /// When each joiner's welcome must be out.
    private var welcomesDue: [ConnectionID: Timestamp] = [:]
    /// Connections given messages this turn, written when it ends.
    private var toFlush: [LiveConnection] = []
    private var flushing: [LiveConnection] = []

    init(
        limits: ServerLimits, metrics: ServerMetrics,
        handBack: @escaping @Sendable (_ welcome: UInt64, _ frames: [OutFrame]) -> Void
    ) {
        self.limits = limits
        self.metrics = metrics
        self.handBack = handBack
    }

    func add(_ connection: LiveConnection) {
        connections[connection.id] = connection
    }

    func remove(_ id: ConnectionID) {
        connections.removeValue(forKey: id)?.isGone = true
        welcomesDue[id] = nil
    }

    /// A document left memory: no joiner can ask for its welcome now.
    func forgetWelcome(of document: DocumentName) {
        latest[document] = nil
    }

    /// Queues a message for each recipient still open.
    func send(_ message: Message, to recipients: [ConnectionID], at now: Timestamp) {
        if case .welcome(let welcome) = message {
            for id in recipients {
                guard let connection = connections[id], connection.closeCode == nil else { continue }
                sendWelcome(welcome, to: connection, at: now)
            }
            return
        }
        // A message that always goes in one frame (an ack, presence) skips
        // the splitting `wireFrames` weighs and its arrays: an ack for every
        // push took about 4,400 instructions that way (callgrind, one-set
        // pushes), about 1,900 this way.
        if message.travelsInOneFrame {
            send(to: recipients) { CollectionOfOne(OutFrame(message.encoded(as: $0))) }
        } else {
            send(to: recipients) { message.wireFrames(as: $0).map(OutFrame.init) }
        }
    }

    /// Queues a message's frames for each recipient still open, encoded
    /// once per encoding the recipients speak.
    private func send<Frames: Collection<OutFrame>>(
        to recipients: [ConnectionID], encoded: (WireEncoding) -> Frames
    ) {
        var binary: Frames?
        var json: Frames?
        for id in recipients {
            guard let connection = connections[id], connection.closeCode == nil else { continue }
            let frames: Frames
            switch connection.encoding {
            case .binary:
                frames = binary ?? encoded(.binary)
                binary = frames
            case .json:
                frames = json ?? encoded(.json)
                json = frames
            }
            let wasEmpty = connection.outgoing.isEmpty
            for frame in frames { connection.outgoing.append(frame) }
            if !closedForReadingTooSlowly(connection), wasEmpty, !connection.flushQueued {
                connection.flushQueued = true
                toFlush.append(connection)
            }
        }
    }

    /// Writes what this turn queued, straight to each socket that takes
    /// it, once the turn has ended: everything a connection got in the
    /// turn goes in one write. Asking lws for a writable callback instead
    /// cost two `epoll_ctl`s and a trip through the loop a write; a
    /// connection whose socket is full gets the callback as before.
    func flushQueued(through batch: FrameBatch) {
        guard !toFlush.isEmpty else { return }
        swap(&toFlush, &flushing)
        for connection in flushing where !connection.isGone {
            connection.flushQueued = false
            if flush(connection, through: batch) < 0 {
                connection.writeFailed = true
                connection.wantsToWrite()
            }
        }
        flushing.removeAll(keepingCapacity: true)
    }

    /// A welcome: a small one encoded here for this joiner; a big one's
    /// content shared (or encoded now, off the thread, for the joiners to
    /// come), then the joiner's own last piece with its peers.
    private func sendWelcome(_ welcome: Welcome, to connection: LiveConnection, at now: Timestamp) {
        var bytes = 0
        var awaited: SharedWelcome?
        if SharedWelcome.isBig(welcome), let document = connection.document {
            let shared = sharedWelcome(welcome, in: document, as: connection.encoding)
            connection.outgoing.append(shared)
            if shared.frames == nil { awaited = shared }
            bytes += shared.byteCount
            let ending = SharedWelcome.encodeEnding(of: welcome, as: connection.encoding)
            for (index, frame) in ending.enumerated() {
                connection.outgoing.append(frame, endsWelcome: index == ending.count - 1)
                bytes += frame.count
            }
        } else {
            let frames = Message.welcome(welcome).wireFrames(as: connection.encoding).map(OutFrame.init)
            for (index, frame) in frames.enumerated() {
                connection.outgoing.append(frame, endsWelcome: index == frames.count - 1)
                bytes += frame.count
            }
        }
        let allowance = limits.welcomeMilliseconds(forBytes: bytes)
        if let awaited {
            // The joiner cannot read what is not yet encoded: its clock
            // starts when the encoder hands the frames back.
            awaited.waiting.append(.init(connection: connection.id, allowance: allowance))
        } else {
            welcomesDue[connection.id] = now + allowance
        }
        if !closedForReadingTooSlowly(connection), awaited == nil { connection.wantsToWrite() }
    }

    private func sharedWelcome(_ welcome: Welcome, in document: DocumentName, as encoding: WireEncoding)
        -> SharedWelcome
    {
        let key = SharedWelcome.key(of: welcome, in: document, as: encoding)
        if let shared = latest[document]?.value, shared.key == key {
            metrics.welcomesShared.increment()
            return shared
        }
        let shared = SharedWelcome(number: nextWelcome, key: key)
        nextWelcome += 1
        latest[document] = WeakWelcome(value: shared)
        self.encoding[shared.number] = shared
        metrics.welcomesEncodedOffThread.increment()
        let number = shared.number
        encoder.async { [handBack] in
            handBack(number, SharedWelcome.encodeContent(of: welcome, as: encoding))
        }
        return shared
    }

    /// The encoder is done: the joiners waiting for it may write, and their
    /// deadlines start now, grown by what they have to take. However long
    /// the encoding took, it is the server's time, not the joiner's.
    func encoded(_ number: UInt64, _ frames: [OutFrame], at now: Timestamp) {
        guard let shared = encoding.removeValue(forKey: number) else { return }
        shared.finish(frames)
        let extra = limits.welcomeMilliseconds(forBytes: shared.byteCount) - Int64(limits.welcomeMilliseconds)
        // Closing ones too: their close frame waits behind the welcome.
        for joiner in shared.waiting {
            guard let connection = connections[joiner.connection] else { continue }
            if connection.outgoing.awaitsWelcome { welcomesDue[joiner.connection] = now + joiner.allowance + extra }
            connection.wantsToWrite()
        }
        shared.waiting = []
    }

    /// Writes what the connection has queued while its socket takes it.
    func flush(_ connection: LiveConnection, through batch: FrameBatch) -> Int32 {
        if connection.writeFailed { return -1 }
        let result = connection.flush(through: batch)
        if !connection.outgoing.awaitsWelcome { welcomesDue[connection.id] = nil }
        return result
    }

    /// Closes with 4002 every joiner that has not taken its welcome in time.
    func closeLateWelcomes(at now: Timestamp) {
        for (id, due) in welcomesDue where now > due {
            welcomesDue[id] = nil
            guard let connection = connections[id], connection.outgoing.awaitsWelcome else { continue }
            metrics.welcomesLate.increment()
            connection.closeForReadingTooSlowly()
        }
    }

    /// Closes a connection with 4002 when its own queue is over the bound,
    /// dropping what it had; true when it did.
    private func closedForReadingTooSlowly(_ connection: LiveConnection) -> Bool {
        guard connection.outgoing.ownedBytes > limits.queuedBytes else { return false }
        welcomesDue[connection.id] = nil
        connection.closeForReadingTooSlowly()
        return true
    }
}

/// A document's latest shared welcome, not kept alive by the cache: it
/// lives as long as some joiner's queue holds it.
struct WeakWelcome {
    weak var value: SharedWelcome?
}
