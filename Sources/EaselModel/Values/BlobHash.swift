/// The SHA-256 of an image's bytes: images are stored by content, and an
/// image entity only refers to them.
public struct BlobHash: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 32 digest bytes as four big-endian words, so comparing words
    /// compares the digests byte by byte.
    public var words: (UInt64, UInt64, UInt64, UInt64)

    public init(words: (UInt64, UInt64, UInt64, UInt64)) {
        self.words = words
    }

    /// Reads 64 hex digits (either case); nil for anything else.
    public init?(hex: String) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 64 else { return nil }
        var parsed: [UInt64] = []
        parsed.reserveCapacity(4)
        for wordIndex in 0..<4 {
            var word: UInt64 = 0
            for byte in utf8[(wordIndex * 16)..<(wordIndex * 16 + 16)] {
                guard let nibble = Self.nibble(byte) else { return nil }
                word = word << 4 | UInt64(nibble)
            }
            parsed.append(word)
        }
        words = (parsed[0], parsed[1], parsed[2], parsed[3])
    }

    /// The digest bytes in order.
    public var bytes: [UInt8] {
        [words.0, words.1, words.2, words.3].flatMap { word in
            (0..<8).reversed().map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) }
        }
    }

    public init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 32, "a SHA-256 digest has 32 bytes")
        var words: [UInt64] = [0, 0, 0, 0]
        for (index, byte) in bytes.enumerated() {
            words[index / 8] = words[index / 8] << 8 | UInt64(byte)
        }
        self.words = (words[0], words[1], words[2], words[3])
    }

    public static func == (lhs: BlobHash, rhs: BlobHash) -> Bool {
        lhs.words == rhs.words
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    public static func < (lhs: BlobHash, rhs: BlobHash) -> Bool {
        lhs.words < rhs.words
    }

    /// The zero hash, which names no blob (no bytes hash to it): a document
    /// without a background image holds it.
    public static let none = BlobHash(words: (0, 0, 0, 0))

    /// 64 lower-case hex digits: the blob's name in URLs and files.
    public var hex: String { description }

    /// 64 lower-case hex digits.
    public var description: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
