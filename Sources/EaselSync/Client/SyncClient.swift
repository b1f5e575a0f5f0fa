import EaselModel
import EaselProtocol

/// One client's side of collaboration, without any I/O: it owns the editor,
/// applies local edits at once, keeps them in an outbox until the server
/// acknowledges them, resends them after a reconnect, applies everyone
/// else's commits, and shares and shows presence.
///
/// The transport tells it when a connection opens and closes and what
/// arrives, and carries out `takeOutputs()`; the app drives the editor
/// through `send(_:at:)` and `perform(_:at:)` and calls `tick(at:)` every
/// few tens of milliseconds.
public struct SyncClient: Sendable {
    public let document: DocumentName
    public var user: UserInfo
    public var configuration: SyncClientConfiguration
    public internal(set) var editor: Editor

    /// Where this copy stands in the server's history; nil before the first
    /// welcome.
    public internal(set) var resumePoint: ResumePoint?
    /// Set after a refused push: the next hello asks for a whole snapshot so
    /// the refused ops' effects leave the local document.
    var needsSnapshot = false

    // MARK: Outbox

    /// Pushes sent on the current connection and not yet acknowledged.
    var inFlight: [OutgoingPush] = []
    /// Pushes of earlier connections that were never acknowledged, to send
    /// again as they were: a push is atomic, so regrouping them would let
    /// one refused op take unrelated edits down with it.
    var awaitingResend: [[Op]] = []
    /// Local ops not yet in any push, in order.
    var unsent: [Op] = []
    /// Blobs the app is uploading, and the local ops that wait for them
    /// (SyncClient+Blobs.swift), in order.
    public internal(set) var awaitedBlobs: Set<BlobHash> = []
    var heldOps: [Op] = []
    var nextBatch: UInt64 = 1

    // MARK: Connection

    var isConnected = false
    var isWelcomed = false
    var isWeak = false
    /// The protocol version of the last welcome.
    var agreedVersion: UInt32 = 1
    var welcomeChunks: [Welcome] = []
    var outputs: [ClientOutput] = []
    var events: [SyncEvent] = []
    var outstandingPing: (nonce: UInt64, sentAt: Timestamp)?
    var lastPingAt: Timestamp?
    /// When the server was last heard from on this connection.
    var lastHeardAt = Timestamp(milliseconds: 0)
    var nextNonce: UInt64 = 1
    /// The latest measured round trip, in milliseconds.
    public internal(set) var roundTrip: Int64?
    public internal(set) var lastError: ErrorMessage?
    /// The node the server last said holds the document (error 503
    /// `moved to <node>`): the next connection asks the router for it.
    public internal(set) var movedTo: String?

    // MARK: Presence

    /// The other clients in the document, as their latest presence says.
    public internal(set) var peers: [ReplicaID: Presence] = [:]
    /// Peers' ended gestures whose ops are on their way, at most one a peer.
    public internal(set) var settlingGestures: [SettlingGesture] = []
    /// The pointer, in document units; nil when off the canvas.
    public internal(set) var cursor: Point?
    /// The part of the document on screen, when the app says.
    public var visibleArea: VisibleArea?
    var lastPresenceSent: Presence?
    var presenceSentAt: Timestamp?
    /// The state shared in presence, and its epoch: positions count anew in
    /// another epoch.
    var sharedState: (epoch: Epoch, state: PresenceState)?
    /// When the state shared in presence may next change.
    var stateDueAt: Timestamp?
    var lastInteraction: Timestamp
    /// The latest time any event carried: when pushes formed on taking the
    /// outputs were sent.
    var latestTime: Timestamp

    public init(
        document: DocumentName, user: UserInfo, replica: ReplicaID,
        configuration: SyncClientConfiguration = SyncClientConfiguration(), at now: Timestamp
    ) {
        self.document = document
        self.user = user
        self.configuration = configuration
        editor = Editor(replica: replica)
        lastInteraction = now
        latestTime = now
    }

    /// A client that resumes a saved session: its replica, its counter and
    /// its unacknowledged edits, which it shows at once and pushes once
    /// connected.
    public init(
        document: DocumentName, user: UserInfo, restoring session: SavedSession,
        configuration: SyncClientConfiguration = SyncClientConfiguration(), at now: Timestamp
    ) {
        self.init(document: document, user: user, replica: session.replica, configuration: configuration, at: now)
        // The session may be older than the last ops this replica sent: skip
        // far enough ahead that new ops never reuse one of their IDs.
        let (skipped, overflow) = session.counter.addingReportingOverflow(SavedSession.counterGapAfterRestore)
        editor = Editor(
            clock: LamportClock(replica: session.replica, counter: overflow ? .max : skipped), document: Document())
        editor.receive(session.unacknowledged)
        unsent = session.unacknowledged
        for blob in session.awaitedBlobs { awaitedBlobs.insert(blob) }
    }

    public var replica: ReplicaID { editor.replica }

    public var connectionState: ConnectionState {
        guard isConnected else { return .offline }
        guard isWelcomed else { return .connecting }
        return isWeak ? .weak : .connected
    }

    /// Local ops the server has not acknowledged, in the order they were made.
    public var unacknowledged: [Op] {
        inFlight.flatMap({ $0.ops }) + awaitingResend.flatMap { $0 } + unsent + heldOps
    }

    /// The last `count` of `unacknowledged`, copying only those: a page
    /// drawing offline notes each new op without gathering every op before.
    public func latestUnacknowledged(_ count: Int) -> [Op] {
        var latest: [Op] = []
        var needed = max(count, 0)
        func take(_ ops: some BidirectionalCollection<Op>) {
            guard needed > 0 else { return }
            let taken = ops.suffix(needed)
            latest.insert(contentsOf: taken, at: 0)
            needed -= taken.count
        }
        take(heldOps)
        take(unsent)
        for ops in awaitingResend.reversed() { take(ops) }
        for push in inFlight.reversed() { take(push.ops) }
        return latest
    }

    /// How many local ops the server has not acknowledged, without copying them.
    public var unacknowledgedCount: Int {
        inFlight.reduce(0) { $0 + $1.ops.count } + awaitingResend.reduce(0) { $0 + $1.count } + heldOps.count
            + unsent.count
    }

    /// The session to save so unsent edits survive a restart.
    public var savedSession: SavedSession {
        SavedSession(
            replica: replica, counter: editor.clock.counter, unacknowledged: unacknowledged,
            awaitedBlobs: awaitedBlobs.sorted())
    }

    /// What to send or do since the last call, in order.
    public mutating func takeOutputs() -> [ClientOutput] {
        formPushes()
        defer { outputs.removeAll(keepingCapacity: true) }
        return outputs
    }

    /// What happened to this client's edits since the last call.
    public mutating func takeEvents() -> [SyncEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    // MARK: Transport events

    /// A connection opened: say hello, resuming from where this copy stands.
    public mutating func connectionOpened(at now: Timestamp) {
        latestTime = max(latestTime, now)
        // A transport that reconnects without reporting the close first.
        if isConnected { connectionClosed(at: now) }
        isConnected = true
        isWelcomed = false
        isWeak = false
        welcomeChunks = []
        lastPingAt = now
        lastHeardAt = now
        let since = needsSnapshot ? nil : resumePoint
        outputs.append(
            .send(
                .hello(
                    Hello(
                        document: document, replica: replica, token: configuration.token, since: since, user: user))))
    }

    /// The connection is gone: what was in flight waits to be resent, and
    /// peers are forgotten (the next welcome lists them again).
    public mutating func connectionClosed(at now: Timestamp) {
        isConnected = false
        isWelcomed = false
        isWeak = false
        welcomeChunks = []
        awaitingResend = inFlight.map({ $0.ops }) + awaitingResend
        inFlight = []
        peers = [:]
        settlingGestures = []
        outstandingPing = nil
        roundTrip = nil
        lastPresenceSent = nil
        presenceSentAt = nil
        outputs = []
    }

    public mutating func receive(_ message: Message, at now: Timestamp) {
        latestTime = max(latestTime, now)
        guard isConnected else { return }
        lastHeardAt = now
        switch message {
        case .welcome(let welcome):
            welcomeChunks.append(welcome)
            if !welcome.more { completeWelcome(at: now) }
        case .ack(let ack):
            acknowledge(ack)
        case .ops(let ops):
            guard isWelcomed, let last = ops.last else { return }
            // By index: iterating would copy every op out of the message.
            for index in ops.indices { editor.receiveOne(ops[index].op) }
            editor.receivingEnded()
            noteCommits(ops)
            advance(to: last.position)
        case .presence(let presence):
            guard presence.replica != replica else { return }
            noteGesture(of: presence, at: now)
            peers[presence.replica] = presence
        case .leave(let replica):
            peers[replica] = nil
        case .error(let error):
            handle(error)
        case .ping(let nonce):
            outputs.append(.send(.pong(nonce: nonce)))
        case .pong(let nonce):
            if let ping = outstandingPing, ping.nonce == nonce {
                roundTrip = now.milliseconds(since: ping.sentAt)
                outstandingPing = nil
            }
        case .hello, .push:
            break
        }
    }

    /// Presence throttling and idling, pings, and the weak-connection check.
    public mutating func tick(at now: Timestamp) {
        latestTime = max(latestTime, now)
        expireSettlingGestures(at: now)
        // Pings go out while a large welcome arrives too, so the server
        // hears from this client all along.
        guard isConnected else { return }
        if now.milliseconds(since: lastHeardAt) >= configuration.deadAfter {
            // Once a deadAfter: the transport's close ends the connection.
            lastHeardAt = now
            outputs.append(.disconnect(reason: "silent server"))
            return
        }
        if outstandingPing == nil, now.milliseconds(since: lastPingAt ?? now) >= configuration.pingInterval {
            outstandingPing = (nextNonce, now)
            lastPingAt = now
            outputs.append(.send(.ping(nonce: nextNonce)))
            nextNonce += 1
        }
        guard isWelcomed else { return }
        let pingLate = outstandingPing.map { now.milliseconds(since: $0.sentAt) > configuration.weakRoundTrip } ?? false
        let slowRoundTrip = (roundTrip ?? 0) > configuration.weakRoundTrip
        let ackLate = inFlight.first.map { now.milliseconds(since: $0.sentAt) > configuration.weakAckDelay } ?? false
        isWeak = pingLate || slowRoundTrip || ackLate
        sharePresence(at: now)
    }

    // MARK: Server messages

    private mutating func completeWelcome(at now: Timestamp) {
        var chunks = welcomeChunks
        welcomeChunks = []
        guard let last = chunks.last else { return }
        if case .snapshot = last.content {
            editor.rebase(onto: Self.document(fromSnapshot: &chunks), reapplying: unacknowledged)
        } else {
            for chunk in chunks {
                if case .tail(let ops) = chunk.content { editor.receive(ops.lazy.map({ $0.op })) }
            }
        }
        resumePoint = ResumePoint(position: last.position, epoch: last.epoch)
        agreedVersion = last.protocolVersion
        // A server below version 4 reads no character ops: texts are then
        // written whole, as it knows them.
        editor.editTextAsCharacters(agreedVersion >= WireProtocol.textVersion)
        needsSnapshot = false
        isWelcomed = true
        // The latest presence of each peer (a loop: Embedded Swift has no
        // Dictionary(_:uniquingKeysWith:)).
        peers = [:]
        for chunk in chunks {
            for peer in chunk.peers where peer.replica != replica { peers[peer.replica] = peer }
        }
        // A small document's state is shared from the welcome on; a big
        // one's waits its interval less one, not hashed in the moment the
        // client has its whole document to draw.
        stateDueAt = now + (stateGap - configuration.stateInterval)
        sharePresence(at: now)
    }

    /// The document a welcome's snapshot chunks hold, applied chunk by
    /// chunk, each chunk's ops let go once applied: a client's memory peaks
    /// while it takes a big welcome in, and in the module it keeps that
    /// peak. The records are reserved once, for every chunk's creates.
    static func document(fromSnapshot chunks: inout [Welcome]) -> Document {
        var base = Document()
        var creates = 0
        for chunk in chunks {
            if case .snapshot(let ops) = chunk.content { creates += Document.createCount(in: ops) }
        }
        base.reserveCapacity(forCreates: creates)
        for index in chunks.indices {
            guard case .snapshot(let ops) = chunks[index].content else { continue }
            chunks[index].content = .snapshot([])
            // A chunk may end among a text's snapshot pieces: the text's
            // characters merge whatever order and batches they come in.
            base.apply(contentsOf: ops)
        }
        return base
    }

    private mutating func acknowledge(_ ack: Ack) {
        guard let index = inFlight.firstIndex(where: { $0.batch == ack.batch }) else { return }
        let push = inFlight.remove(at: index)
        events.append(.acknowledged(push.ops.map({ $0.id })))
        // Acks and ops come in position order, so everything before the
        // ack's end is here: with count 0, the head when the server sent it,
        // which may hold this replica's resent ops (committed for an earlier
        // connection, never sent back as ops).
        let (end, overflow) = ack.first.addingReportingOverflow(UInt64(ack.count))
        if !overflow, end > 0 { advance(to: end - 1) }
    }

    private mutating func advance(to position: UInt64) {
        guard let point = resumePoint, position > point.position else { return }
        resumePoint = ResumePoint(position: position, epoch: point.epoch)
    }

    private mutating func handle(_ error: ErrorMessage) {
        lastError = error
        if error.code == .moved {
            let prefix = "moved to "
            movedTo = error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : nil
        }
        if let batch = error.batch, Self.isFinalRefusal(error.code),
            let index = inFlight.firstIndex(where: { $0.batch == batch })
        {
            let push = inFlight.remove(at: index)
            events.append(.refused(error, push.ops))
            // The refused ops are applied here but nowhere else: start over
            // from the server's state, keeping the other unacknowledged ops.
            needsSnapshot = true
            outputs.append(.disconnect(reason: "push refused (\(error.code)): \(error.message)"))
        } else {
            events.append(.serverError(error))
            // A push refused for now (rate, load, shutdown) stays in flight
            // and is sent again on the next connection.
            if error.fatal || error.batch != nil {
                outputs.append(.disconnect(reason: "\(error.code): \(error.message)"))
            }
        }
    }

    /// Whether a refusal is about the ops themselves, so sending them again
    /// can never succeed: decoding (1xx), meaning (2xx) and permission (3xx).
    /// Limits (4xx) and server trouble (5xx) pass.
    static func isFinalRefusal(_ code: ErrorCode) -> Bool {
        (100..<400).contains(code.rawValue)
    }
}

/// A push on the wire, waiting for its ack.
struct OutgoingPush: Hashable, Sendable {
    var batch: UInt64
    var ops: [Op]
    var sentAt: Timestamp
}
