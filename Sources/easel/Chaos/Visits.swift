import EaselBot
import EaselBotScript
import EaselLocking
import EaselModel
import EaselProtocol
import Foundation

/// Bots that come and go: each document, on a thread of its own, rests
/// empty, then a fleet of random bots (images too) visits it for a while,
/// settles and leaves, and so on until the end. Every visit must end
/// converged; every acknowledgement and stored blob is told to the witness
/// and every acknowledgement's wait to `latencies`.
final class Visits: Sendable {
    struct Plan: Sendable {
        var stay: ClosedRange<Int>
        var rest: ClosedRange<Int>
    }

    private let shape: ChaosCrowd.Shape
    private let url: String
    private let images: [String]
    private let witness: Witness
    private let latencies: LatencyWindow
    private let plan: Plan
    private let state = Locked(State())
    private let finished = DispatchGroup()

    private struct State {
        var fleets: [Int: BotFleet] = [:]
        var last: [Int: Result<FleetOutcome, FleetError>] = [:]
        var visits = 0
        var problems: [String] = []
        var stopping = false
    }

    init(
        _ shape: ChaosCrowd.Shape, url: String, images: [String], witness: Witness, latencies: LatencyWindow,
        plan: Plan
    ) throws {
        self.shape = shape
        self.url = url
        self.images = images
        self.witness = witness
        self.latencies = latencies
        self.plan = plan
    }

    var botsOnline: Int { state.withLock { $0.fleets.count } * shape.botsPerDocument }
    var visitCount: Int { state.withLock { $0.visits } }
    var problems: [String] { state.withLock { $0.problems } }

    func start(until end: ContinuousClock.Instant) {
        for index in 0..<shape.documents {
            finished.enter()
            Thread.detachNewThread { [self] in
                visit(index, until: end)
                finished.leave()
            }
        }
    }

    /// Stops the visits under way (they settle, then leave) and starts no
    /// other.
    func requestFinish() {
        let fleets = state.withLock { state in
            state.stopping = true
            return Array(state.fleets.values)
        }
        fleets.forEach { $0.requestStop() }
    }

    /// Whether every visit has settled and left, waiting at most `seconds`.
    func hasFinished(within seconds: Double) -> Bool {
        finished.wait(timeout: .now() + seconds) == .success
    }

    /// The last outcome of each document.
    var lastOutcomes: [Int: Result<FleetOutcome, FleetError>] { state.withLock { $0.last } }

    private func visit(_ index: Int, until end: ContinuousClock.Instant) {
        var random = SplitMix64(seed: shape.seed ^ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        // The first visits start within the first few seconds, spread out.
        var rest = Double.random(in: 0...Double(min(plan.rest.lowerBound, 5)), using: &random)
        var round = 0
        while true {
            // In steps, so the end is noticed within a fifth of a second.
            let rested = ContinuousClock.now
            while (ContinuousClock.now - rested).seconds < rest, !state.withLock({ $0.stopping }) {
                Thread.sleep(forTimeInterval: min(0.2, rest))
            }
            // A visit shorter than the shortest stay would end before its
            // bots have joined on a busy machine: none starts that late.
            let left = (end - ContinuousClock.now).seconds
            guard left >= Double(plan.stay.lowerBound), !state.withLock({ $0.stopping }) else { return }
            let stay = min(Double(Int.random(in: plan.stay, using: &random)), left)
            let outcome = Result { () throws(FleetError) in
                let fleet = try self.fleet(index, round: round, stay: stay)
                let registered = state.withLock { state in
                    guard !state.stopping else { return false }
                    state.fleets[index] = fleet
                    state.visits += 1
                    return true
                }
                guard registered else { throw Self.notStarted }
                defer { _ = state.withLock { $0.fleets.removeValue(forKey: index) } }
                return try fleet.run()
            }
            state.withLock { state in
                switch outcome {
                case .failure(Self.notStarted):
                    return
                case .success(let result)
                where result.verdict == .converged && result.images.uploadFailures.isEmpty
                    && result.images.unverified.isEmpty:
                    break
                case .success(let result) where result.verdict == .converged:
                    state.problems.append(
                        "chaos/doc-\(index), visit \(round + 1): uploads failed \(result.images.uploadFailures.prefix(2)), "
                            + "images unverified \(result.images.unverified.prefix(2))")
                case .success(let result):
                    state.problems.append("chaos/doc-\(index), visit \(round + 1): \(result.verdict)")
                case .failure(let error):
                    state.problems.append("chaos/doc-\(index), visit \(round + 1): \(error)")
                }
                state.last[index] = outcome
            }
            round += 1
            rest = Double(Int.random(in: plan.rest, using: &random))
        }
    }

    /// A visit the end overtook before its fleet ran.
    private static let notStarted = FleetError("the soak ended before this visit began")

    private func fleet(_ index: Int, round: Int, stay: Double) throws(FleetError) -> BotFleet {
        let document: DocumentName
        do {
            document = try DocumentName("chaos/doc-\(index)")
        } catch {
            throw FleetError("\(error)")
        }
        var configuration = BotFleet.Configuration(url: url, document: document)
        configuration.joinTimeout = .seconds(60)
        configuration.settleTimeout = .seconds(120)
        configuration.duration = .milliseconds(Int64(stay * 1000))
        configuration.onAcknowledged = { [witness] in witness.acknowledged($0, in: document) }
        configuration.onBlobStored = { [witness] in witness.stored($0) }
        configuration.onAckLatency = { [latencies] in latencies.record($0) }
        let mix = RandomMix(RandomMix.standard.weights.merging([.image: 1]) { $1 })
        let bots = (0..<shape.botsPerDocument).map { bot in
            var random = RandomBot(
                seed: RandomBot.seed(forBot: (index * 10_000 + round) * shape.botsPerDocument + bot, of: shape.seed),
                mix: mix, actionsPerSecond: shape.actionsPerSecond)
            random.imageFiles = images
            return random as any BotBehaviour
        }
        return try BotFleet(configuration, behaviours: bots)
    }
}
