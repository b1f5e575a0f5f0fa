@testable import EaselProtocol
import EaselTestSupport
import Testing

/// Typed characters are decoded from UTF-8 straight into scalars; that
/// must accept and refuse exactly what decoding a String does.
@Suite struct ScalarDecodingTests {
    /// A length-prefixed byte string, as the binary form writes characters.
    func read(_ bytes: [UInt8]) -> (string: String?, scalars: [Unicode.Scalar]?) {
        var framed: [UInt8] = []
        var length = UInt64(bytes.count)
        repeat {
            framed.append(UInt8(length & 0x7F) | (length >= 0x80 ? 0x80 : 0))
            length >>= 7
        } while length > 0
        framed += bytes
        return framed.withUnsafeBytes { buffer in
            var forString = BinaryReader(buffer)
            var forScalars = BinaryReader(buffer)
            return (
                try? forString.string("text", limit: 1 << 16), try? forScalars.scalars("text", limit: 1 << 16)
            )
        }
    }

    @Test func scalarsDecodeExactlyWhenAStringDecodesAndAgreeWithIt() {
        var random = SeededRandom(seed: 8)
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("é".utf8), Array("😀".utf8), Array("中".utf8), [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0x7F], [0x00],
        ]
        for _ in 0..<5000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...8, using: &random) { bytes += pieces[Int.random(in: 0..<pieces.count, using: &random)] }
            let (string, scalars) = read(bytes)
            #expect(string.map { Array($0.unicodeScalars) } == scalars, "\(bytes)")
        }
    }
}
