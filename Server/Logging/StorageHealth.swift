import EaselProtocol
import EaselSync
import Logging
import Synchronization

/// Storage failures and recoveries, as storage answers (on its thread):
/// each failure is logged with its detail under an incident number, which
/// the failure carries on to the clients it closes; the first success after
/// a failure is logged as a recovery.
final class StorageHealth: Sendable {
    /// An atomic, not a lock: every append's answer asks it (about 650
    /// instructions an append through a lock, callgrind).
    private let failing = Atomic(false)

    func note(_ completion: inout StorageCompletion, logger: Logger) {
        switch completion {
        case .loaded(let document, .failure(var failure)):
            log(&failure, document: document, logger: logger)
            completion = .loaded(document, .failure(failure))
        case .stored(let ticket, .failure(var failure), let ops):
            log(&failure, document: nil, logger: logger)
            completion = .stored(ticket, .failure(failure), ops: ops)
        case .warmed(let document, .failure(var failure)):
            log(&failure, document: document, logger: logger)
            completion = .warmed(document, .failure(failure))
        case .evicted(let document, var failure):
            log(&failure, document: document, logger: logger)
            completion = .evicted(document, failure)
        case .handOver(let document, let node):
            logger.info("document handed over", metadata: ["document": "\(document)", "node": "\(node)"])
        case .loaded(_, .success), .warmed(_, .success), .stored(_, .success, _):
            if failing.load(ordering: .relaxed), failing.exchange(false, ordering: .relaxed) {
                logger.notice("storage recovered")
            }
        }
    }

    private func log(_ failure: inout StorageFailure, document: DocumentName?, logger: Logger) {
        if case .moved(let node) = failure.kind {
            // Not a fault: another node serves the document (several nodes on
            // one database), and its clients are sent there.
            var metadata: Logger.Metadata = ["node": "\(node ?? "none")", "detail": "\(failure.detail)"]
            if let document { metadata["document"] = "\(document)" }
            logger.info("document moved", metadata: metadata)
            return
        }
        failing.store(true, ordering: .relaxed)
        let incident = Incident.next()
        failure.incident = incident
        var metadata: Logger.Metadata = [
            "incident": "\(incident)", "kind": "\(failure.kind)", "detail": "\(failure.detail)",
        ]
        if let document { metadata["document"] = "\(document)" }
        logger.error("storage failed", metadata: metadata)
    }
}

/// Numbers for failures the client hears of and the log explains.
enum Incident {
    /// Eight hex digits, random: unguessable enough to say nothing, short
    /// enough to read out. The first is a letter, a–f: the log writes a
    /// value that reads as a whole number as a JSON number, and an incident
    /// must stay a string wherever it appears (one in 43 of all digits did
    /// not).
    static func next() -> String {
        let first = "abcdef".randomElement() ?? "a"
        let digits = String(UInt32.random(in: 0..<(1 << 28)), radix: 16)
        return String(first) + String(repeating: "0", count: 7 - digits.count) + digits
    }
}
