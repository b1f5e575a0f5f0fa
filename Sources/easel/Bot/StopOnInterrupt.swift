import EaselBot
import EaselBotScript
import Foundation
import Synchronization

/// Ctrl-C stops the bots editing but still lets them settle and gives the
/// verdict; a second Ctrl-C quits at once.
final class StopOnInterrupt {
    private let source: any DispatchSourceSignal

    init(_ fleet: BotFleet) {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let interrupted = Flag()
        source.setEventHandler {
            if interrupted.raise() { exit(130) }
            FileHandle.standardError.write(
                Data("\neasel bot: stopping; settling and checking (Ctrl-C again quits at once)\n".utf8))
            fleet.requestStop()
        }
        source.resume()
        self.source = source
    }

    func cancel() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}

private final class Flag: Sendable {
    private let raised = Atomic(false)

    /// Raises the flag; whether it was already up.
    func raise() -> Bool { raised.exchange(true, ordering: .relaxed) }
}
