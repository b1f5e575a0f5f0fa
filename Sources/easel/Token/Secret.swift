import Foundation

/// The server's secret: the one given on the command line, or else
/// EASEL_SECRET (an empty variable counts as none), so `easel serve` and
/// `easel token` always find it in the same place.
func serverSecret(given: String?) -> String? {
    given ?? ProcessInfo.processInfo.environment["EASEL_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
}
