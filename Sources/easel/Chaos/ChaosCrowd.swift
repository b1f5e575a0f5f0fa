import EaselBot
import EaselBotScript
import EaselLocking
import EaselModel
import EaselProtocol
import Foundation

/// The bots of a fault run: random bots (images too) on many documents,
/// each document's bots a fleet on a thread and a client loop of its own,
/// every acknowledgement and stored blob told to the witness.
final class ChaosCrowd: Sendable {
    struct Shape: Sendable {
        var documents: Int
        var botsPerDocument: Int
        var actionsPerSecond: Double
        var seed: UInt64
    }

    let shape: Shape
    private let fleets: [BotFleet]
    private let outcomes = Locked<[Int: Result<FleetOutcome, FleetError>]>([:])
    private let finished = DispatchGroup()

    /// `onAckLatency` hears how long each acknowledgement took, from every
    /// bot of every document.
    init(
        _ shape: Shape, url: String, images: [String], witness: Witness,
        onAckLatency: (@Sendable (Duration) -> Void)? = nil
    ) throws {
        self.shape = shape
        fleets = try (0..<shape.documents).map { index in
            let document = try DocumentName("chaos/doc-\(index)")
            var configuration = BotFleet.Configuration(url: url, document: document)
            configuration.joinTimeout = .seconds(60)
            configuration.settleTimeout = .seconds(120)
            configuration.onAcknowledged = { witness.acknowledged($0, in: document) }
            configuration.onBlobStored = { witness.stored($0) }
            configuration.onAckLatency = onAckLatency
            let mix = RandomMix(RandomMix.standard.weights.merging([.image: 1]) { $1 })
            let bots = (0..<shape.botsPerDocument).map { bot in
                var random = RandomBot(
                    seed: RandomBot.seed(forBot: index * shape.botsPerDocument + bot, of: shape.seed), mix: mix,
                    actionsPerSecond: shape.actionsPerSecond)
                random.imageFiles = images
                return random as any BotBehaviour
            }
            return try BotFleet(configuration, behaviours: bots)
        }
    }

    func start() {
        for (index, fleet) in fleets.enumerated() {
            finished.enter()
            Thread.detachNewThread { [self] in
                let outcome = Result { () throws(FleetError) in try fleet.run() }
                outcomes.withLock { $0[index] = outcome }
                finished.leave()
            }
        }
    }

    /// Stops the bots' editing; each fleet settles (every op acknowledged,
    /// every bot checked against a fresh client) before this returns.
    func stopAndSettle() -> [Int: Result<FleetOutcome, FleetError>] {
        fleets.forEach { $0.requestStop() }
        finished.wait()
        return outcomes.withLock { $0 }
    }
}
