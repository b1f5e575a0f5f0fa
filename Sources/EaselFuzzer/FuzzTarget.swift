/// One place the fuzzer hunts in: a name to pick it by, the property its
/// check holds every input to (a broken one traps, which libFuzzer reports
/// with the input), and the seeds its corpus starts from.
struct FuzzTarget: Sendable {
    let name: String
    let property: String
    let check: @Sendable ([UInt8]) -> Void
    /// Inputs that reach deep from the start (valid messages, scripts,
    /// requests), as (name, bytes); written by `EaselFuzzer seed`.
    let seeds: @Sendable (SeedSources) throws -> [(String, [UInt8])]

    static let all: [FuzzTarget] = [.binary, .json, .apply, .script, .http, .bridge]

    static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}

/// Where seeds come from: the golden vectors and the example scripts of
/// the source tree.
struct SeedSources: Sendable {
    var vectors: String
    var scripts: String
}
