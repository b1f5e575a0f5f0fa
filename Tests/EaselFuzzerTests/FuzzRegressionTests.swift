@testable import EaselFuzzer
import EaselTestSupport
import Foundation
import Testing

/// The fuzz targets' checks run in the suite on what is known to reach
/// deep: each target's seeds, and every input a fuzzer once broke a
/// property with (Tests/Fuzz/regressions/<target>/), so a fixed finding
/// stays fixed without libFuzzer.
@Suite struct FuzzRegressionTests {
    static let sources = SeedSources(
        vectors: packageRoot.appendingPathComponent("Protocol/vectors").path,
        scripts: packageRoot.appendingPathComponent("examples/bots").path)

    @Test(arguments: FuzzTarget.all.map(\.name))
    func everySeedOfEveryFuzzTargetHoldsItsProperty(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let seeds = try target.seeds(Self.sources)
        #expect(!seeds.isEmpty, "a target with no seeds starts its corpus from nothing")
        for (_, input) in seeds { target.check(input) }
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func everyInputAFuzzerOnceBrokeAPropertyWithNowHoldsIt(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let folder = packageRoot.appendingPathComponent("Tests/Fuzz/regressions/\(name)").path
        guard FileManager.default.fileExists(atPath: folder) else { return }
        for file in try Vectors.files(in: folder) { target.check(try Vectors.contents(of: file)) }
    }
}
