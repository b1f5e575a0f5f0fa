import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

@testable import EaselSync

/// A client takes a snapshot welcome in chunk by chunk, letting each go
/// once applied; the state it ends with is the one the chunks hold,
/// wherever the server cut them.
@Suite struct WelcomeChunksTests {
    /// A star, a text of 9,000 runs (typed a character at a time by two
    /// replicas in turn, so its snapshot is three pieces) and a shape.
    static func source() -> Document {
        var document = Document()
        document.apply(op(1, alice, .create(.emoji, [.character("⭐️"), .size(30)])))
        let text = op(2, alice, .create(.text, [.text("")]))
        document.apply(text)
        // Every third character typed at the front, so runs have right
        // origins, some of them in later pieces.
        var (first, last): (OpID?, OpID?) = (nil, nil)
        for index in 0..<9_000 {
            let id = opID(UInt64(10 + index), index % 2 == 0 ? alice : bob)
            let atFront = index % 3 == 0
            let insertion = TextInsertion(
                originLeft: atFront ? nil : last, originRight: atFront ? first : nil, scalars: ["a"])
            document.apply(Op(id: id, transaction: TransactionID(id), action: .insertText(text.entity, insertion)))
            if atFront || first == nil { first = id }
            if !atFront || last == nil { last = id }
        }
        document.apply(op(20_000, bob, .create(.shape, [.shape(.ellipse), .width(40)])))
        return document
    }

    @Test("a snapshot welcome cut anywhere, even among one text's pieces, gives the state it holds")
    func aSnapshotCutAnywhereGivesItsState() {
        let source = Self.source()
        let ops = source.snapshotOps
        let pieces = ops.indices.filter { if case .textSnapshot = ops[$0].action { true } else { false } }
        #expect(pieces.count >= 3, "the text's snapshot comes in several pieces")
        var cuts: [[Int]] = [[], [pieces[1]], [pieces[1], pieces[2]], [pieces[0]], [pieces[2], ops.count - 1]]
        for seed in propertySeeds(count: 40, label: "welcome chunks") {
            var random = SeededRandom(seed: seed)
            cuts.append((0..<Int.random(in: 1...5, using: &random)).map { _ in Int.random(in: 1..<ops.count, using: &random) })
        }
        for cut in cuts {
            let bounds = [0] + Set(cut).sorted() + [ops.count]
            var chunks = zip(bounds, bounds.dropFirst()).enumerated().map { index, range in
                Welcome(
                    epoch: Epoch(rawValue: 7), position: 9, content: .snapshot(Array(ops[range.0..<range.1])),
                    more: index < bounds.count - 2)
            }
            let document = SyncClient.document(fromSnapshot: &chunks)
            #expect(document.canonicalEncoding == source.canonicalEncoding, "cut at \(cut)")
            #expect(document.textString(of: EntityID(opID(2, alice))) == String(repeating: "a", count: 9_000))
        }
    }
}
