/// The 64-bit hash of a document's canonical encoding: equal on two
/// replicas exactly when (barring a collision) they hold the same state.
public struct StateHash: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Sixteen hex digits.
    public var hex: String {
        let digits = String(rawValue, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Four emoji a person can compare at a glance, as call apps show for
    /// key verification: 6 bits each from the top 24 bits of the hash.
    public var emojiKey: String {
        (0..<4).map { index in
            Self.emojiAlphabet[Int((rawValue >> (58 - 6 * UInt64(index))) & 63)]
        }.joined()
    }

    public var description: String { "\(hex) \(emojiKey)" }

    /// 64 emoji, each a single scalar that every platform shows in colour,
    /// none easily confused with another. Never reorder: golden vectors
    /// pin this mapping.
    static let emojiAlphabet: [String] = [
        "🐶", "🐱", "🐭", "🐹", "🐰", "🦊", "🐻", "🐼",
        "🐨", "🐯", "🦁", "🐮", "🐷", "🐸", "🐵", "🐔",
        "🐧", "🐦", "🐤", "🦆", "🦉", "🐴", "🦄", "🐝",
        "🐛", "🦋", "🐌", "🐞", "🐢", "🐍", "🐙", "🦀",
        "🐠", "🐬", "🐳", "🦈", "🐊", "🐘", "🦒", "🦓",
        "🌵", "🌲", "🌴", "🍀", "🍁", "🍄", "🌻", "🌹",
        "🍎", "🍌", "🍇", "🍓", "🍒", "🍑", "🍍", "🥕",
        "🌽", "🍕", "🍩", "🍪", "🎈", "🎁", "⚽", "🚀",
    ]
}
