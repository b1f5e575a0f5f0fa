import EaselBotScript
import EaselModel
import Histogram

/// How a fleet's run went: each bot, the latencies, and whether everyone
/// ended up with the server's document.
public struct FleetOutcome: Sendable {
    public struct Bot: Sendable, Codable, Hashable {
        public var name: String
        public var replica: String
        /// Ops the bot made, and those the server acknowledged or refused.
        public var opsMade: Int
        public var opsAcknowledged: Int
        public var opsRefused: Int
        /// Why the first of them were refused: code and message.
        public var refusals: [String] = []
        /// The highest counter among this bot's acknowledged ops; with no
        /// refusals, every op the bot made up to it is durable.
        public var highestAcknowledgedCounter: UInt64
        public var offlinePeriods: Int
        /// Connections that opened: the first, and one per reconnection.
        public var connections: Int
        public var stateHash: String
        /// A script's failure, with its line and column.
        public var failure: String?
        /// Whether the bot was cut short by the duration or a stop request.
        public var stopped: Bool
    }

    public enum Verdict: Sendable, Hashable {
        /// Every bot and a fresh client read this state.
        case converged
        /// These bots read another state than the server.
        case diverged([String])
        /// Ops were never acknowledged, or the server could not be read.
        case unsettled(String)
    }

    public var bots: [Bot]
    public var verdict: Verdict
    /// What a fresh client read from the server at the end, when it could.
    public var serverHash: StateHash?
    public var serverEntities: Int?
    public var elapsed: Duration
    /// Microseconds from making an op to its acknowledgement.
    public var ackLatency: Histogram<UInt64>
    public var reconnects: Int
    public var images = Images()
    /// Characters typed in acknowledged ops that the verdict found where
    /// the CRDT says, and what it found wrong (`CharacterCheck`).
    public var charactersChecked = 0
    public var misplacedCharacters: [String] = []

    /// The images the bots uploaded, and those they saw, each downloaded
    /// and checked against its hash.
    public struct Images: Sendable, Codable, Hashable {
        public var uploadsStarted = 0
        public var uploaded = 0
        public var uploadFailures: [String] = []
        public var verified = 0
        public var unverified: [String] = []
    }

    public var failures: [(bot: String, failure: String)] {
        bots.compactMap { bot in bot.failure.map { (bot.name, $0) } }
    }

    /// Whether the run is a pass: no script failed, the server took every
    /// op and every upload, everyone converged, and every image anyone sees
    /// downloads whole.
    public var passed: Bool {
        failures.isEmpty && opsRefused == 0 && verdict == .converged && images.uploadFailures.isEmpty
            && images.unverified.isEmpty && misplacedCharacters.isEmpty
    }

    public var opsMade: Int { bots.reduce(0) { $0 + $1.opsMade } }
    public var opsAcknowledged: Int { bots.reduce(0) { $0 + $1.opsAcknowledged } }
    public var opsRefused: Int { bots.reduce(0) { $0 + $1.opsRefused } }
}

/// A live reading, for a progress line.
public struct FleetProgress: Sendable {
    public var elapsed: Duration
    public var phase: String
    public var bots: Int
    public var online: Int
    public var opsMade: Int
    public var opsAcknowledged: Int
    /// Acknowledged ops a second, and latencies, since the last reading.
    public var acknowledgedPerSecond: Double
    public var ackP50: Duration?
    public var ackP99: Duration?
    /// How late the most overdue bot ran since the last reading.
    public var behind: Duration
}
