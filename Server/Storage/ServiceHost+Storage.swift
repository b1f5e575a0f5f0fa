import EaselSync
import Foundation

/// The rooms' storage outputs, carried out through the port: each answer
/// goes back through the inbox to the service thread, timed and counted on
/// the way, with slow commits and storage failures and recoveries logged.
extension ServiceHost {
    func store(_ output: ServerOutput) {
        let started = ContinuousClock.now
        _ = storage.perform(output) {
            [inbox, metrics, logger = log.logger, storageHealth, slowCommits, weak self] completion in
            var completion = completion
            if case .stored(_, .success, let ops) = completion {
                let took = ContinuousClock.now - started
                metrics.commitLatency.record(took)
                metrics.opsCommitted.increment(by: Int64(ops))
                slowCommits.note(took, ops: ops, at: started + took, logger: logger)
            }
            storageHealth.note(&completion, logger: logger)
            if inbox.add(.storage(completion)) { self?.wake() }
        }
    }
}
