import EaselTestSupport
import Testing

@testable import EaselModel

@Suite("Canonical encoding and state hash")
struct CanonicalEncodingTests {
    @Test(
        "XXH64 matches the reference implementation's values",
        arguments: [
            ("", 0xEF46_DB37_51D8_E999 as UInt64),
            ("a", 0xD24E_C4F1_A98C_6E5B),
            ("abc", 0x44BC_2CF5_AD77_0999),
            ("Easel", 0xEED5_C0BD_41F3_820D),
            ("The quick brown fox jumps over the lazy dog", 0x0B24_2D36_1FDA_71BC),
        ])
    func xxh64MatchesReference(_ input: String, _ expected: UInt64) {
        #expect(XXH64.hash(Array(input.utf8)) == expected)
    }

    @Test("XXH64 of 100 bytes 0...99 matches the reference (four 32-byte stripes and a tail)")
    func xxh64LongInputMatchesReference() {
        #expect(XXH64.hash((0..<100).map { UInt8($0) }) == 0x6AC1_E580_3216_6597)
    }

    @Test("XXH64 given in pieces, split anywhere, equals XXH64 of the pieces joined")
    func xxh64InPiecesEqualsWhole() {
        for seed in propertySeeds(count: 500, label: "xxh64 pieces") {
            var random = SeededRandom(seed: seed)
            let bytes = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            var hasher = XXH64.Streaming()
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Int.random(in: 0...70, using: &random))
                hasher.add(Array(bytes[start..<end]))
                start = end
            }
            #expect(hasher.finish() == XXH64.hash(bytes), "seed \(seed), \(bytes.count) bytes")
        }
    }

    @Test("a document's state hash is XXH64 of its canonical encoding")
    func stateHashIsTheHashOfTheEncoding() {
        var document = Document(applying: HashFixture.ops)
        let star = op(900, alice, .create(.text, [.text(String(repeating: "long enough to span pieces ", count: 400))]))
        document.apply(star)
        #expect(document.canonicalEncoding.count > 8192)
        #expect(document.stateHash.rawValue == XXH64.hash(document.canonicalEncoding))
    }

    @Test("the fixture document's canonical bytes and hash are pinned")
    func fixtureBytesAndHashArePinned() {
        let document = Document(applying: HashFixture.ops)
        let hex = document.canonicalEncoding.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        print("canonical fixture: \(document.canonicalEncoding.count) bytes, hash \(document.stateHash)")
        #expect(hex == Self.goldenHex)
        #expect(document.stateHash.hex == Self.goldenHash)
        #expect(document.stateHash.emojiKey == Self.goldenEmojiKey)
    }

    @Test("the state hash does not depend on the order ops arrived in")
    func hashIgnoresDeliveryOrder() {
        var random = SeededRandom(seed: 42)
        let expected = Document(applying: HashFixture.ops).stateHash
        for _ in 0..<50 {
            #expect(Document(applying: HashFixture.ops.shuffled(using: &random)).stateHash == expected)
        }
    }

    @Test("the emoji key is four emoji from the hash's top 24 bits")
    func emojiKeyShowsTheTopBits() {
        #expect(StateHash(rawValue: 0).emojiKey == "🐶🐶🐶🐶")
        #expect(StateHash(rawValue: 0xFFFF_FF00_0000_0000).emojiKey == "🚀🚀🚀🚀")
        #expect(StateHash(rawValue: 0x0410_4000_0000_0000).emojiKey == "🐱🐱🐱🐶")
        #expect(Set(StateHash.emojiAlphabet).count == 64)
    }

    static let goldenHex = [
        "4541534c010601ce110a000000000001060001ce110a000000000001010601a20c0000000000000040410201ce110a00",
        "000000000000a4c10501ce110a00000000000261300901ce110a0000000000000020420c01ce110a000000000006e2ad",
        "90efb88f0002ce110a00000000000206000701a20c0000000000000502ce110a00000000000261310702ce110a000000",
        "0000ffffffff0a02ce110a00000000000000f0420b02ce110a00000000000000a0421102ce110a00000000000400030b",
        "0b0b0000000000030700090b0b0b00000000000105030b0b0b000000000002613209030b0b0b0000000000000090410d",
        "030b0b0b00000000000d48656c6c6f2c2063616e7661730e030b0b0b0000000000054d656e6c6f0f030b0b0b00000000",
        "000110030b0b0b0000000000010004ce110a000000000004060004ce110a0000000000010504ce110a00000000000261",
        "330604ce110a0000000000ff8000ff0804ce110a00000000000000c0401204ce110a0000000000031304ce110a000000",
        "000001020005ce110a000000000002000000000000000000000000010000003f00004040000080406f12833c000506ce",
        "110a0000000000010000104100001041cdcccc3d000501a20c00000000000507000501a20c000000000001030501a20c",
        "000000000000000040040501a20c00000000000000803e050501a20c00000000000261340a0501a20c00000000000000",
        "20440b0501a20c00000000000000f043140501a20c000000000001020304050607081112131415161718212223242526",
        "2728313233343536373800320b0b0b00000000000001020901a20c00000000000000803f00",
    ].joined()
    static let goldenHash = "5773816aef0ff8e7"
    static let goldenEmojiKey = "🐴🥕🐵🐱"
}
