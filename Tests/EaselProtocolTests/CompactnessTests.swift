import EaselModel
import EaselProtocol
import EaselTestSupport
import Testing

@Suite("Bytes on the wire")
struct CompactnessTests {
    /// The workload: 1,000 random sets of x, y, scale or rotation on
    /// 100 entities by one replica (Yrs needs 8.7 bytes an op for the like).
    static func thousandNumericSets(seed: UInt64) -> Message {
        var random = SeededRandom(seed: seed)
        let entities = (1...100).map { EntityID(opID(UInt64($0), alice)) }
        let ops = (0..<1000).map { index -> Op in
            let entity = entities.randomElement(using: &random) ?? entities[0]
            let value = Float.random(in: -2000...2000, using: &random)
            let field: Field =
                switch Int.random(in: 0..<4, using: &random) {
                case 0: .x(value)
                case 1: .y(value)
                case 2: .scale(Float.random(in: 0.1...10, using: &random))
                default: .rotation(Float.random(in: -3.14...3.14, using: &random))
                }
            return op(UInt64(101 + index), alice, .set(entity, field))
        }
        return .push(Push(batch: 1, ops: ops))
    }

    @Test func aThousandNumericSetsOnAHundredEntitiesCostAtMostEightBytesAnOpInBinary() {
        for seed in propertySeeds(count: 20, label: "bytes per op") {
            let push = Self.thousandNumericSets(seed: seed)
            let binary = Double(push.binaryEncoded().count) / 1000
            let json = Double(push.jsonEncoded().count) / 1000
            #expect(binary <= 8, "EASEL_SEED=\(seed): \(binary) bytes an op")
            print("bytes per op, 1,000 numeric sets: binary \(binary), JSON \(json)")
        }
    }

    @Test func aKeystrokeTypedOnCostsFiveBytesInABatch() {
        // A text, then keys typed one after another, each after the last:
        // the left origin is the character just before the op's own ID, so
        // it is not written, nor is the counter (one on) or the transaction.
        let note = EntityID(opID(1, alice))
        func keys(_ count: Int) -> Message {
            let ops = (0..<count).map { index in
                op(
                    UInt64(10 + index), alice,
                    .insertText(
                        note, TextInsertion(originLeft: opID(UInt64(9 + index), alice), originRight: nil, scalars: ["k"])))
            }
            return .push(Push(batch: 1, ops: ops))
        }
        #expect(keys(101).binaryEncoded().count - keys(1).binaryEncoded().count == 100 * 5)
    }

    @Test func aPushOfOneSetFromTheSpecIsTwentyFourBytes() {
        let star = EntityID(opID(1, alice))
        let push = Message.push(Push(batch: 7, ops: [op(2, alice, .set(star, .x(12.5)))]))
        #expect(push.binaryEncoded().count == 24)
    }
}
