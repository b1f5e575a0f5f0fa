import EaselModel
import EaselProtocol
import EaselSync
import EaselTestSupport

/// What the simulations did, summed over a run; the test fails if any
/// count stays zero.
struct SimulationCounts: CustomStringConvertible {
    var seeds = 0
    var clients = 0
    var edits = 0
    var opsCommitted = 0
    var messages = 0
    var crashes = 0
    var compactions = 0
    var disconnects = 0
    var reconnects = 0
    var offlinePeriods = 0
    var restarts = 0
    var snapshotWelcomes = 0
    var tailWelcomes = 0
    var duplicateAcks = 0
    var sharedStatesChecked = 0

    mutating func add(_ other: SimulationCounts) {
        seeds += other.seeds
        clients += other.clients
        edits += other.edits
        opsCommitted += other.opsCommitted
        messages += other.messages
        crashes += other.crashes
        compactions += other.compactions
        disconnects += other.disconnects
        reconnects += other.reconnects
        offlinePeriods += other.offlinePeriods
        restarts += other.restarts
        snapshotWelcomes += other.snapshotWelcomes
        tailWelcomes += other.tailWelcomes
        duplicateAcks += other.duplicateAcks
        sharedStatesChecked += other.sharedStatesChecked
    }

    var named: [(String, Int)] {
        [
            ("seeds", seeds), ("clients", clients), ("edits", edits), ("ops committed", opsCommitted),
            ("messages", messages), ("server crashes", crashes), ("compactions", compactions),
            ("disconnects", disconnects), ("reconnects", reconnects), ("offline periods", offlinePeriods),
            ("client restarts", restarts), ("snapshot welcomes", snapshotWelcomes), ("tail welcomes", tailWelcomes),
            ("resends acknowledged as duplicates", duplicateAcks),
            ("shared states checked against the log", sharedStatesChecked),
        ]
    }

    var description: String { named.map { "\($0.0): \($0.1)" }.joined(separator: ", ") }
}

/// One Room and 2 to 6 client engines over a seeded, single-threaded
/// network: links delay messages (in order within a connection, as a
/// WebSocket does), connections drop, clients go offline and keep editing,
/// restart from their saved session, and the server crashes, losing
/// whatever storage had not committed, then reloads.
///
/// Every message crosses the link encoded (binary or JSON, per client) and
/// is decoded on arrival, so the codecs and message splitting take part.
struct NetworkSimulation {
    let seed: UInt64
    let document: DocumentName
    private(set) var counts = SimulationCounts(seeds: 1)
    private var random: SeededRandom
    private var now = Timestamp(milliseconds: 1_700_000_000_000)
    private let storage: InMemoryRoomStorage
    private let completions = StorageCompletions()
    private var server: SyncServer
    private(set) var participants: [Participant]
    private var nextConnection: UInt64 = 1
    /// Problems the run saw on the way (a refused push, an undecodable
    /// message); a correct system has none.
    private(set) var problems: [String] = []

    struct Participant {
        var engine: SyncClient
        var encoding: WireEncoding
        var link: Link?
        /// When a disconnected participant connects again.
        var reconnectAt: Timestamp?
        /// Every op this participant saw acknowledged.
        var acknowledged: Set<OpID> = []
    }

    struct Link {
        let connection: ConnectionID
        var toServer: [(at: Timestamp, frame: Frame)] = []
        var toClient: [(at: Timestamp, frame: Frame)] = []
        var isEmpty: Bool { toServer.isEmpty && toClient.isEmpty }
    }

    enum Frame {
        case bytes([UInt8])
        /// The server closed the connection after the frames before it.
        case close
    }

    private let configuration: ServerConfiguration

    init(seed: UInt64, configuration: ServerConfiguration = ServerConfiguration()) throws {
        self.configuration = configuration
        self.seed = seed
        random = SeededRandom(seed: seed)
        document = try DocumentName("sim/board")
        storage = InMemoryRoomStorage(seed: seed)
        server = SyncServer(configuration: configuration)
        let count = Int.random(in: 2...6, using: &random)
        counts.clients = count
        var participants: [Participant] = []
        for index in 0..<count {
            let encoding: WireEncoding = random.chance(0.5) ? .binary : .json
            let user = UserInfo(name: "user\(index)", initials: "U\(index)", color: Color(rawValue: 0x3366_99FF))
            let engine = SyncClient(
                document: document, user: user, replica: ReplicaID(rawValue: random.next() | 1),
                configuration: SyncClientConfiguration(encoding: encoding), at: now)
            participants.append(
                Participant(
                    engine: engine, encoding: encoding, reconnectAt: now + Int64.random(in: 0...50, using: &random)))
        }
        self.participants = participants
    }

    // MARK: Running

    mutating func run(steps: Int = 300) throws {
        for step in 0..<steps {
            now = now + 10
            deliverDueFrames()
            try chaos()
            tickEveryone()
            drain()
            if step % 10 == 9 { checkSharedStates() }
        }
        try quiesce()
        checkSharedStates()
    }

    /// The state a participant would share in presence is the state of the
    /// log's first ops up to its position, whatever the chaos: presence
    /// compares states by position on that promise.
    private mutating func checkSharedStates() {
        let log = storage.commitLog(of: document.rawValue)
        for (index, participant) in participants.enumerated() {
            guard let state = participant.engine.stateAtPosition else { continue }
            counts.sharedStatesChecked += 1
            guard state.position <= UInt64(log.count) else {
                problems.append("participant \(index) claims position \(state.position) of \(log.count) committed")
                continue
            }
            var prefix = Document()
            for entry in log.prefix(Int(state.position)) { prefix.apply(entry.op) }
            if prefix.stateHash != state.hash {
                problems.append(
                    "participant \(index) shares \(state.hash) at position \(state.position), "
                        + "where the log's first ops hash to \(prefix.stateHash)")
            }
        }
    }

    /// Stops the chaos and lets everything settle: gestures end, everyone
    /// reconnects, storage commits, every message arrives.
    private mutating func quiesce() throws {
        for index in participants.indices {
            if let input = RandomEditing.finishing(participants[index].engine.editor, using: &random) {
                try apply(input, at: index)
            }
            if participants[index].link == nil { participants[index].reconnectAt = now }
        }
        for _ in 0..<5_000 {
            now = now + 10
            connectDue()
            storage.commitPending()
            deliverDueFrames()
            tickEveryone()
            drain()
            if isSettled { return }
        }
        problems.append("did not settle within 50 s of simulated time")
    }

    private var isSettled: Bool {
        storage.pendingCount == 0 && completions.isEmpty
            && participants.allSatisfy { participant in
                participant.engine.connectionState != .offline && participant.engine.connectionState != .connecting
                    && participant.engine.unacknowledged.isEmpty && (participant.link?.isEmpty ?? false)
            }
    }

    // MARK: Chaos

    private mutating func chaos() throws {
        connectDue()
        for index in participants.indices {
            if random.chance(0.15) {
                if let input = RandomEditing.next(for: participants[index].engine.editor, using: &random) {
                    try apply(input, at: index)
                }
            }
            if random.chance(0.05) {
                let point = RandomEditing.screenPoint(in: participants[index].engine.editor, &random)
                participants[index].engine.pointerMoved(to: point, at: now)
            }
            guard participants[index].link != nil else { continue }
            if random.chance(0.004) {
                counts.disconnects += 1
                dropLink(of: index, reconnectAfter: Int64.random(in: 10...300, using: &random))
            } else if random.chance(0.002) {
                counts.offlinePeriods += 1
                dropLink(of: index, reconnectAfter: Int64.random(in: 300...1_500, using: &random))
            } else if random.chance(0.001) {
                counts.restarts += 1
                restart(index)
            }
        }
        if random.chance(0.3) { storage.commitPending(Int.random(in: 1...4, using: &random)) }
        if random.chance(0.003) {
            counts.compactions += 1
            storage.snapshotAndCompact(document.rawValue)
        }
        if random.chance(0.002) { crashServer() }
    }

    private mutating func apply(_ input: EditorInput, at index: Int) throws {
        switch input {
        case .gesture(let event): try participants[index].engine.send(event, at: now)
        case .command(let command): try participants[index].engine.perform(command, at: now)
        }
        counts.edits += 1
    }

    private mutating func connectDue() {
        for index in participants.indices {
            guard participants[index].link == nil, let at = participants[index].reconnectAt, at <= now else { continue }
            let connection = ConnectionID(rawValue: nextConnection)
            nextConnection += 1
            participants[index].link = Link(connection: connection)
            participants[index].reconnectAt = nil
            server.open(connection, at: now)
            participants[index].engine.connectionOpened(at: now)
            counts.reconnects += 1
        }
    }

    /// The connection breaks at both ends at once; what was on the wire is lost.
    private mutating func dropLink(of index: Int, reconnectAfter delay: Int64) {
        guard let link = participants[index].link else { return }
        participants[index].link = nil
        participants[index].reconnectAt = now + delay
        participants[index].engine.connectionClosed(at: now)
        server.close(link.connection, at: now)
    }

    /// The app quits and starts again from its saved session: the local
    /// document is gone, the outbox survives.
    private mutating func restart(_ index: Int) {
        dropLink(of: index, reconnectAfter: Int64.random(in: 10...200, using: &random))
        let old = participants[index].engine
        do {
            let session = try SavedSession(encoded: old.savedSession.encoded())
            participants[index].engine = SyncClient(
                document: document, user: old.user, restoring: session, configuration: old.configuration, at: now)
        } catch {
            problems.append("a saved session did not decode: \(error)")
        }
    }

    /// The server process dies: storage loses what it had not committed,
    /// every connection breaks, and a new server starts on the same storage.
    private mutating func crashServer() {
        counts.crashes += 1
        storage.crash()
        completions.drop()
        server = SyncServer(configuration: configuration)
        for index in participants.indices where participants[index].link != nil {
            participants[index].link = nil
            participants[index].engine.connectionClosed(at: now)
            participants[index].reconnectAt = now + Int64.random(in: 50...400, using: &random)
        }
    }

    // MARK: Moving messages

    private mutating func tickEveryone() {
        server.tick(at: now)
        for index in participants.indices { participants[index].engine.tick(at: now) }
    }

    /// Carries out outputs until nothing more happens.
    private mutating func drain() {
        var busy = true
        while busy {
            busy = false
            for output in server.takeOutputs() {
                busy = true
                guard let output = completions.perform(output, on: storage) else { continue }
                route(output)
            }
            if completions.deliver(to: server, at: now) > 0 { busy = true }
            for index in participants.indices {
                for output in participants[index].engine.takeOutputs() {
                    busy = true
                    switch output {
                    case .send(let message): sendToServer(message, from: index)
                    case .disconnect: dropLink(of: index, reconnectAfter: Int64.random(in: 10...100, using: &random))
                    }
                }
                for event in participants[index].engine.takeEvents() { note(event, at: index) }
            }
        }
    }

    private mutating func note(_ event: SyncEvent, at index: Int) {
        switch event {
        case .acknowledged(let ids): participants[index].acknowledged.formUnion(ids)
        case .refused(let error, let ops): problems.append("participant \(index): \(ops.count) ops refused: \(error)")
        case .serverError(let error): problems.append("participant \(index): server error \(error)")
        case .placeFailed(let blob, let reason, _): problems.append("participant \(index): \(blob) failed: \(reason)")
        }
    }

    private mutating func route(_ output: ServerOutput) {
        switch output {
        case .send(let message, let connections):
            var frames: [WireEncoding: [[UInt8]]] = [:]
            for connection in connections {
                guard let index = participantIndex(of: connection) else { continue }
                let encoding = participants[index].encoding
                let encoded = frames[encoding] ?? message.wireFrames(as: encoding)
                frames[encoding] = encoded
                for bytes in encoded { enqueueToClient(.bytes(bytes), at: index) }
            }
        case .close(let connection, _):
            if let index = participantIndex(of: connection) { enqueueToClient(.close, at: index) }
        case .unloaded, .load, .warm, .append:
            break
        }
    }

    private func participantIndex(of connection: ConnectionID) -> Int? {
        participants.indices.first { participants[$0].link?.connection == connection }
    }

    private mutating func delay(after last: Timestamp?) -> Timestamp {
        max(last ?? now, now + Int64.random(in: 1...30, using: &random))
    }

    private mutating func enqueueToClient(_ frame: Frame, at index: Int) {
        let at = delay(after: participants[index].link?.toClient.last?.at)
        participants[index].link?.toClient.append((at, frame))
    }

    private mutating func sendToServer(_ message: Message, from index: Int) {
        guard participants[index].link != nil else { return }
        for bytes in message.wireFrames(as: participants[index].encoding) {
            let at = delay(after: participants[index].link?.toServer.last?.at)
            participants[index].link?.toServer.append((at, .bytes(bytes)))
        }
    }

    /// Delivers every frame whose time has come, in order per direction.
    private mutating func deliverDueFrames() {
        for index in participants.indices {
            while let link = participants[index].link, let first = link.toServer.first, first.at <= now {
                participants[index].link?.toServer.removeFirst()
                guard case .bytes(let bytes) = first.frame else { continue }
                counts.messages += 1
                do {
                    server.receive(
                        try Message(decoding: bytes, as: participants[index].encoding), from: link.connection, at: now)
                } catch {
                    problems.append("the server could not decode a client's message: \(error)")
                }
            }
            while let link = participants[index].link, let first = link.toClient.first, first.at <= now {
                participants[index].link?.toClient.removeFirst()
                switch first.frame {
                case .close:
                    dropLink(of: index, reconnectAfter: Int64.random(in: 10...200, using: &random))
                case .bytes(let bytes):
                    counts.messages += 1
                    do {
                        let message = try Message(decoding: bytes, as: participants[index].encoding)
                        if case .welcome(let welcome) = message, !welcome.more {
                            if case .snapshot = welcome.content {
                                counts.snapshotWelcomes += 1
                            } else {
                                counts.tailWelcomes += 1
                            }
                        }
                        if case .ack(let ack) = message, ack.count == 0 { counts.duplicateAcks += 1 }
                        participants[index].engine.receive(message, at: now)
                    } catch {
                        problems.append("a client could not decode the server's message: \(error)")
                    }
                }
            }
        }
    }

    // MARK: Verdict

    /// What is wrong with the end state; empty when every participant
    /// converged with the committed document and nothing acknowledged is
    /// missing or doubled.
    mutating func verdict() -> [String] {
        var failures = problems
        let log = storage.commitLog(of: document.rawValue)
        counts.opsCommitted = log.count
        let committed = storage.history(of: document.rawValue).document()
        let ids = log.map(\.op.id)
        let unique = Set(ids)
        if unique.count != ids.count { failures.append("\(ids.count - unique.count) ops were committed twice") }
        if !log.enumerated().allSatisfy({ $0.element.position == UInt64($0.offset + 1) }) {
            failures.append("committed positions are not 1, 2, 3, …")
        }
        for (index, participant) in participants.enumerated() {
            let missing = participant.acknowledged.subtracting(unique)
            if !missing.isEmpty {
                failures.append("participant \(index): \(missing.count) acknowledged ops are not committed")
            }
            let document = participant.engine.editor.document
            if document.stateHash != committed.stateHash {
                failures.append(
                    "participant \(index) holds \(document.stateHash), the server committed \(committed.stateHash)")
            }
            if document.zOrder != committed.zOrder {
                failures.append("participant \(index) orders entities differently")
            }
        }
        return failures
    }
}
