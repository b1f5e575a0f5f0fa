@testable import EaselProtocol
import EaselModel
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

    /// The same bytes as an insert reads them: checked and counted, kept
    /// as UTF-8, and read back from the insertion both ways.
    func readAsInsertion(_ bytes: [UInt8]) -> (forward: [Unicode.Scalar], backward: [Unicode.Scalar])? {
        var framed: [UInt8] = [UInt8(bytes.count)]
        framed += bytes
        return framed.withUnsafeBytes { buffer in
            var reader = BinaryReader(buffer)
            guard let (utf8, count) = try? reader.validUTF8("text", limit: 1 << 16) else { return nil }
            let insertion = TextInsertion(originLeft: nil, originRight: nil, validUTF8: utf8, count: count)
            #expect(insertion.scalars.count == count)
            return (Array(insertion.scalars), Array(insertion.scalars.reversed()))
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
            if bytes.count < 0x80 {
                let insertion = readAsInsertion(bytes)
                #expect(insertion?.forward == scalars, "\(bytes)")
                #expect(insertion?.backward == scalars?.reversed(), "\(bytes)")
            }
        }
    }

    @Test func anInsertKeptAsUTF8MergesAsItsScalarsWholeOrWhereItOverlapsWhatArrived() throws {
        let alice = ReplicaID(rawValue: 0xA11CE)
        let note = EntityID(OpID(counter: 1, replica: alice))
        let create = Op(id: note.creation, transaction: TransactionID(note.creation), action: .create(.text, []))
        func insert(_ text: String, at counter: UInt64, after left: OpID?) -> Op {
            let id = OpID(counter: counter, replica: alice)
            return Op(
                id: id, transaction: TransactionID(id),
                action: .insertText(
                    note, TextInsertion(originLeft: left, originRight: nil, scalars: Array(text.unicodeScalars))))
        }
        // "héllo 🎨" typed, then the same run again with more typed on: the
        // second arrives with its first characters here already.
        let first = insert("héllo 🎨", at: 2, after: nil)
        let longer = insert("héllo 🎨 中文", at: 2, after: nil)
        let message = Message.ops([first, longer].enumerated().map { PositionedOp(position: UInt64($0.offset + 2), op: $0.element) })
        var document = Document()
        document.apply(create)
        let received = try #require(try Message.ops(binary: message.binaryEncoded()))
        document.apply(contentsOf: received)
        #expect(document.textString(of: note) == "héllo 🎨 中文")
        // The same in two messages.
        var apart = Document()
        apart.apply(create)
        for op in received { apart.apply(contentsOf: [op]) }
        #expect(apart.textString(of: note) == "héllo 🎨 中文")
    }
}
