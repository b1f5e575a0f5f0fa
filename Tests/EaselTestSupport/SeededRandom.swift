import PropertyBased

/// A xoshiro256** generator expanded from one 64-bit seed, so a failing
/// scenario is named (and replayed) by a single number.
public struct SeededRandom: RandomNumberGenerator {
    private var generator: Xoshiro

    public init(seed: UInt64) {
        var expander = seed
        func nextWord() -> UInt64 {
            expander &+= 0x9E37_79B9_7F4A_7C15
            var mixed = expander
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
        generator = Xoshiro(seed: (nextWord(), nextWord(), nextWord(), nextWord()))
    }

    public mutating func next() -> UInt64 { generator.next() }

    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}

/// Seeds for a property test: one replayed from `EASEL_SEED` when set,
/// otherwise `count` seeds derived from a fresh base seed, printed so any
/// run can be repeated.
public func propertySeeds(count: Int, label: String) -> [UInt64] {
    if let text = environment("EASEL_SEED"), let seed = UInt64(text) {
        print("\(label): replaying EASEL_SEED=\(seed)")
        return [seed]
    }
    let base = UInt64.random(in: 0...UInt64.max)
    print("\(label): \(count) scenarios from base seed \(base)")
    var derive = SeededRandom(seed: base)
    return (0..<count).map { _ in derive.next() }
}
