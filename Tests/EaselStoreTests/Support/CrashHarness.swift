import EaselLocking
import EaselModel
import EaselStore
import EaselTestSupport
import Foundation

/// Runs StoreCrashProbe against one database and SIGKILLs it at random
/// moments, then checks the database against what the probe printed as
/// acknowledged: every acknowledged op at its position, positions from 1
/// with no gap, no op twice.
struct CrashHarness {
    struct Outcome {
        var kills = 0
        var acknowledged = 0
        /// Acknowledged ops missing from the database after a kill.
        var lost: [String] = []
        var gaps: [UInt64] = []
        var duplicates: [OpID] = []
    }

    let database = TemporaryDatabase()
    var random: SeededRandom

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    /// Kills the probe `kills` times (stopping early once a loss is found
    /// when `untilLoss`).
    mutating func run(kills: Int, acknowledgeBeforeCommit: Bool, untilLoss: Bool = false) throws -> Outcome {
        var outcome = Outcome()
        var acknowledged: [UInt64: (ReplicaID, UInt64)] = [:]
        for _ in 0..<kills {
            let output = try runOnce(acknowledgeBeforeCommit: acknowledgeBeforeCommit)
            outcome.kills += 1
            for line in output.split(separator: "\n") {
                let parts = line.split(separator: " ")
                guard parts.count == 3, let position = UInt64(parts[0]), let replica = UInt64(parts[1], radix: 16),
                    let counter = UInt64(parts[2])
                else { continue }
                acknowledged[position] = (ReplicaID(rawValue: replica), counter)
            }
            try check(acknowledged, into: &outcome)
            if untilLoss && !outcome.lost.isEmpty { break }
        }
        outcome.acknowledged = acknowledged.count
        return outcome
    }

    private mutating func runOnce(acknowledgeBeforeCommit: Bool) throws -> String {
        let process = Process()
        process.executableURL = try Self.probe()
        process.arguments = [database.path] + (acknowledgeBeforeCommit ? ["--ack-before-commit"] : [])
        let pipe = Pipe()
        process.standardOutput = pipe
        let collected = Locked(Data())
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            collected.withLock { $0.append(data) }
        }
        try process.run()
        usleep(UInt32.random(in: 60_000...250_000, using: &random))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
        let rest = pipe.fileHandleForReading.readDataToEndOfFile()
        collected.withLock { $0.append(rest) }
        return String(decoding: collected.value, as: UTF8.self)
    }

    /// Reopens the database the probe was killed over and compares.
    private func check(_ acknowledged: [UInt64: (ReplicaID, UInt64)], into outcome: inout Outcome) throws {
        let store = try OpStore(path: database.path)
        guard try store.documentInfo("crash") != nil else { return }
        // Loading must also work after any kill: snapshot + tail.
        _ = try store.load("crash")
        var present: [UInt64: OpID] = [:]
        for stored in try store.ops(of: "crash", after: 0) { present[stored.position] = stored.op.id }
        var expected: UInt64 = 1
        for position in present.keys.sorted() {
            if position != expected { outcome.gaps.append(position) }
            expected = position + 1
        }
        var seen: Set<OpID> = []
        outcome.duplicates = present.values.filter { !seen.insert($0).inserted }
        outcome.lost = acknowledged.compactMap { position, op in
            present[position] == OpID(counter: op.1, replica: op.0) ? nil : "position \(position)"
        }.sorted()
    }

    static func probe() throws -> URL {
        try builtExecutable("StoreCrashProbe")
    }
}
