import EaselBotScript
import EaselClient
import EaselLocking
import EaselModel
import EaselSync

/// One bot of a fleet: its session with the server, what drives it, and
/// what became of its ops. Only the fleet's run thread touches the
/// behaviour and the phase; the ledger is shared with the session's
/// transport thread, which reports acknowledgements.
final class FleetBot {
    enum Phase: Equatable {
        case running
        case finished
        /// Stopped by the fleet's duration or a stop request mid-way.
        case stopped
        case failed(ScriptError)
    }

    let name: String
    let session: DocumentSession
    let ledger: Locked<AckLedger>
    var behaviour: any BotBehaviour
    var phase = Phase.running
    /// While offline: when to reconnect.
    var offlineUntil: Timestamp?
    var offlinePeriods = 0
    /// The character ops the bot made, for the verdict to find their
    /// characters where the CRDT says once they are acknowledged; by ID,
    /// since a key typed on joins the unsent op before it (`Op.join`).
    private(set) var characterOps: [Op] = []
    private var characterOpIndex: [OpID: Int] = [:]

    init(name: String, session: DocumentSession, ledger: Locked<AckLedger>, behaviour: any BotBehaviour) {
        self.name = name
        self.session = session
        self.ledger = ledger
        self.behaviour = behaviour
    }

    var isDone: Bool { phase != .running }

    /// Runs the behaviour until it needs time to pass, noting the ops it
    /// made; a failure ends the bot.
    func advance(at now: Timestamp) -> BotStep {
        let step = session.edit { client -> BotStep in
            let pending = client.unacknowledgedCount
            defer {
                let made = client.unacknowledgedCount - pending
                let upTo = client.editor.clock.counter
                ledger.withLock { $0.made(made, upTo: upTo, at: .now) }
                // The op before the new ones too: a key may have joined it.
                for op in client.latestUnacknowledged(max(0, made) + 1) where op.isCharacterOp { note(op) }
            }
            do throws(ScriptError) {
                return try behaviour.advance(&client, at: now)
            } catch {
                phase = .failed(error)
                return .finished
            }
        }
        if step == .finished, phase == .running { phase = .finished }
        return step
    }

    private func note(_ op: Op) {
        if let index = characterOpIndex[op.id] {
            characterOps[index] = op
        } else {
            characterOpIndex[op.id] = characterOps.count
            characterOps.append(op)
        }
    }

    var isJoined: Bool {
        session.read { $0.connectionState == .connected || $0.connectionState == .weak }
    }
}
